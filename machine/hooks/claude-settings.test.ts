import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../testkit/tmp.ts';
import {
  applySettings,
  HOOK_EVENTS,
  HOOK_PROGRAM_NAME,
  hookCommand,
  planSettings,
  settingsFile,
} from './claude-settings.ts';
import { runHooksCli } from './hooks-cli.ts';

// E10: `hooks install` / `hooks remove` change only our entries in Claude Code's settings.

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function configDir(content?: string) {
  const tmp = makeTmpDir('claude-settings-');
  cleanups.push(tmp.cleanup);
  const dir = path.join(tmp.dir, '.claude');
  mkdirSync(dir);
  const file = path.join(dir, 'settings.json');
  if (content !== undefined) writeFileSync(file, content, { mode: 0o640 });
  return { dir, file, env: { CLAUDE_CONFIG_DIR: dir, HOME: tmp.dir } };
}

const USER_SETTINGS = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'], deny: ['Read(.env)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-guard.sh' }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
  env: { FOO: 'bar' },
};

const SOCKET = '/tmp/state/hooks.sock';

function cli(argv: string[], env: NodeJS.ProcessEnv, typed = '') {
  const input = new PassThrough();
  input.end(typed);
  let out = '';
  let err = '';
  const output = new PassThrough().on('data', (d: Buffer) => (out += d.toString()));
  const errors = new PassThrough().on('data', (d: Buffer) => (err += d.toString()));
  return runHooksCli(argv, {
    input,
    output,
    errors,
    env,
    defaultStateDir: '/tmp/state',
  }).then((code) => ({ code, out, err }));
}

describe('E10: hooks install / remove', () => {
  it('E10 hooks: install adds one entry of ours per event and keeps every other key and hook; remove gives back exactly the file as it was', () => {
    const c = configDir(JSON.stringify(USER_SETTINGS, null, 2) + '\n');
    const before = readFileSync(c.file, 'utf8');
    const plan = planSettings(settingsFile(c.env), hookCommand(SOCKET));
    expect(plan.changes).toBe(true);
    expect(plan.diff).toContain('+    "PermissionRequest": [');
    applySettings(plan);
    type Hooks = Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    const installed = JSON.parse(readFileSync(c.file, 'utf8')) as Omit<
      typeof USER_SETTINGS,
      'hooks'
    > & { hooks: Hooks };
    expect(installed.model).toBe('opus');
    expect(installed.permissions).toEqual(USER_SETTINGS.permissions);
    expect(installed.env).toEqual(USER_SETTINGS.env);
    expect(installed.hooks.PreToolUse).toEqual(USER_SETTINGS.hooks.PreToolUse);
    // The user's Stop hook stays first; ours is added after it.
    expect(installed.hooks.Stop![0]).toEqual(USER_SETTINGS.hooks.Stop[0]);
    for (const event of HOOK_EVENTS) {
      const mine = installed.hooks[event]!.flatMap((e) => e.hooks).filter((h) =>
        h.command.includes(HOOK_PROGRAM_NAME),
      );
      expect(mine).toHaveLength(1);
      expect(mine[0]!.command).toContain(SOCKET);
    }
    // The file's own mode is kept, and no temp file is left beside it.
    expect(statSync(c.file).mode & 0o777).toBe(0o640);
    expect(readdirSync(c.dir)).toEqual(['settings.json']);

    // Installing again changes nothing; remove restores the file byte for byte.
    expect(planSettings(c.file, hookCommand(SOCKET)).changes).toBe(false);
    applySettings(planSettings(c.file, null));
    expect(readFileSync(c.file, 'utf8')).toBe(before);
    expect(planSettings(c.file, null).changes).toBe(false);
  });

  it('E10 hooks: a malformed settings file is refused with settings-malformed and left as it was', async () => {
    for (const bad of ['{"model": "opus",', '[1, 2]', '{"hooks": {"Stop": {"command": "x"}}}']) {
      const c = configDir(bad);
      expect(() => planSettings(c.file, hookCommand(SOCKET))).toThrow(
        expect.objectContaining({ code: 'settings-malformed' }),
      );
      const r = await cli(['install', '--yes'], c.env);
      expect(r.code).toBe(2);
      expect(r.err).toContain('[settings-malformed]');
      expect(readFileSync(c.file, 'utf8')).toBe(bad);
    }
  });

  it('E10 hooks: the command shows the exact change and writes only when confirmed (--yes for scripts); no settings file yet makes one owner-only', async () => {
    const c = configDir(JSON.stringify(USER_SETTINGS));
    const before = readFileSync(c.file, 'utf8');
    const refused = await cli(['install'], c.env, 'n\n');
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`hooks: this change to ${c.file}:`);
    expect(refused.out).toContain('"PermissionRequest"');
    expect(refused.out).toContain('nothing written');
    expect(readFileSync(c.file, 'utf8')).toBe(before);

    const confirmed = await cli(['install'], c.env, 'y\n');
    expect(confirmed.code).toBe(0);
    expect(readFileSync(c.file, 'utf8')).toContain(HOOK_PROGRAM_NAME);
    expect((await cli(['remove', '--yes'], c.env)).code).toBe(0);
    expect(JSON.parse(readFileSync(c.file, 'utf8'))).toEqual(USER_SETTINGS);

    const fresh = configDir();
    expect((await cli(['install', '--yes'], fresh.env)).code).toBe(0);
    expect(statSync(fresh.file).mode & 0o777).toBe(0o600);
    expect(readFileSync(fresh.file, 'utf8')).toContain(HOOK_PROGRAM_NAME);
    expect((await cli(['remove', '--yes'], fresh.env)).code).toBe(0);
    expect(JSON.parse(readFileSync(fresh.file, 'utf8'))).toEqual({});
  });

  it('E10 hooks: a file changed between showing and writing is not written over', () => {
    const c = configDir(JSON.stringify(USER_SETTINGS));
    const plan = planSettings(c.file, hookCommand(SOCKET));
    writeFileSync(c.file, JSON.stringify({ ...USER_SETTINGS, model: 'sonnet' }));
    expect(() => applySettings(plan)).toThrow(
      expect.objectContaining({ code: 'settings-write-failed' }),
    );
    expect(JSON.parse(readFileSync(c.file, 'utf8')).model).toBe('sonnet');
  });
});
