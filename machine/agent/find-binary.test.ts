import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { resolveClaude } from './claude/binary.ts';
import { resolveCodex } from './codex/binary.ts';
import { AGENTS_PACKAGE_NAME, agentsNodeModules } from './find-binary.ts';

// E10 packaging: an agent's binary is `--<agent>-path` when given, else `<agent>` on PATH, else
// the one in agents/node_modules (`npm run agents:install`); with none, one plain line names all
// three ways. Real files in a temp folder laid out as npm lays out agents/.

const tmp = makeTmpDir('find-binary-');
afterAll(() => tmp.cleanup());

function file(rel: string, text = '#!/bin/sh\nexit 0\n', mode = 0o755): string {
  const f = path.join(tmp.dir, rel);
  mkdirSync(path.dirname(f), { recursive: true });
  writeFileSync(f, text);
  chmodSync(f, mode);
  return f;
}

const plat = `${process.platform}-${process.arch}`;
const repo = path.join(tmp.dir, 'repo');
const modules = path.join(repo, 'agents', 'node_modules');
file('repo/agents/package.json', JSON.stringify({ name: AGENTS_PACKAGE_NAME }), 0o644);
const packagedClaude = file(
  `repo/agents/node_modules/@anthropic-ai/claude-agent-sdk-${plat}/claude`,
);
const codexLauncher = file('repo/agents/node_modules/@openai/codex/bin/codex.js', '', 0o644);
file(`repo/agents/node_modules/@openai/codex-${plat}/package.json`, '{}', 0o644);
const binDir = path.join(tmp.dir, 'bin');
const onPathClaude = file('bin/claude');
const onPathCodex = file('bin/codex');
const givenClaude = file('given/claude');
const givenCodex = file('given/codex');
const emptyDir = path.join(tmp.dir, 'empty');
mkdirSync(emptyDir);

describe('E10 packaging: which binary an agent runs', () => {
  it('E10 packaging: --claude-path wins over PATH and agents/; PATH wins over agents/; agents/ last', () => {
    expect(resolveClaude(givenClaude, binDir, modules)).toEqual({
      ok: true,
      path: givenClaude,
      how: '--claude-path',
    });
    expect(resolveClaude(undefined, `${emptyDir}:${binDir}`, modules)).toEqual({
      ok: true,
      path: onPathClaude,
      how: 'PATH',
    });
    expect(resolveClaude(undefined, emptyDir, modules)).toEqual({
      ok: true,
      path: packagedClaude,
      how: 'agents/ (npm run agents:install)',
    });
  });

  it('E10 packaging: --codex-path wins over PATH and agents/; PATH wins over agents/; agents/ (its launcher, run by this Node) last', () => {
    expect(resolveCodex(givenCodex, binDir, modules)).toEqual({
      ok: true,
      launch: { command: givenCodex, args: [] },
      how: '--codex-path',
    });
    expect(resolveCodex(undefined, binDir, modules)).toEqual({
      ok: true,
      launch: { command: onPathCodex, args: [] },
      how: 'PATH',
    });
    expect(resolveCodex(undefined, emptyDir, modules)).toEqual({
      ok: true,
      launch: { command: process.execPath, args: [codexLauncher] },
      how: 'agents/ (npm run agents:install)',
    });
  });

  it('E10 packaging: none of the three: one plain line naming all three ways', () => {
    expect(resolveClaude(undefined, emptyDir, null)).toEqual({
      ok: false,
      message:
        'claude: not found — install Claude Code, pass --claude-path, or run `npm run agents:install`',
    });
    expect(resolveCodex(undefined, emptyDir, null)).toEqual({
      ok: false,
      message:
        'codex: not found — install Codex, pass --codex-path, or run `npm run agents:install`',
    });
    // An agents/ that was never installed is no agents/ at all.
    const bare = path.join(tmp.dir, 'bare', 'agents', 'node_modules');
    expect(resolveClaude(undefined, emptyDir, bare).ok).toBe(false);
  });

  it('E10 packaging: a half-installed codex (launcher without its platform package) is not taken', () => {
    const half = path.join(tmp.dir, 'half');
    file('half/@openai/codex/bin/codex.js', '', 0o644);
    expect(resolveCodex(undefined, emptyDir, half)).toMatchObject({ ok: false });
  });

  it('E10 packaging: a --claude-path that is not an executable file is said, not passed over', () => {
    const notExec = file('given/not-exec', 'x', 0o644);
    expect(resolveClaude(notExec, binDir, modules)).toEqual({
      ok: false,
      message: `claude: --claude-path ${notExec} is not an executable file`,
    });
  });

  it('E10 packaging: agents/ is found from the sources and from a bundle under node_modules/.cache', () => {
    expect(agentsNodeModules(path.join(repo, 'machine', 'agent'))).toBe(modules);
    expect(agentsNodeModules(path.join(repo, 'node_modules', '.cache', 'dsh-bundles'))).toBe(
      modules,
    );
    // A folder that merely happens to be called agents/ is not ours.
    file('other/agents/package.json', JSON.stringify({ name: 'someone-else' }), 0o644);
    expect(agentsNodeModules(path.join(tmp.dir, 'other', 'deep'))).toBeNull();
    // This repository's own.
    expect(agentsNodeModules()).toBe(
      path.resolve(import.meta.dirname, '../../agents/node_modules'),
    );
  });
});
