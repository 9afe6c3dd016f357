import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// E10 packaging: the root `npm ci` (the demo's) never fetches an agent's native CLI; agents/ pins
// the same versions the machine's code is written against.

const REPO = path.resolve(import.meta.dirname, '../..');
type Lock = {
  packages: Record<
    string,
    {
      version?: string;
      resolved?: string;
      link?: boolean;
      optionalDependencies?: Record<string, string>;
    }
  >;
};
type Pkg = { dependencies: Record<string, string>; overrides?: Record<string, string> };
const json = <T>(rel: string): T => JSON.parse(readFileSync(path.join(REPO, rel), 'utf8')) as T;
const rootPkg = json<Pkg>('package.json');
const rootLock = json<Lock>('package-lock.json');
const agentsPkg = json<Pkg>('agents/package.json');
const agentsLock = json<Lock>('agents/package-lock.json');
const SDK = '@anthropic-ai/claude-agent-sdk';

describe('E10 packaging: what the root npm ci installs', () => {
  it("E10 packaging: each of the Claude SDK's per-platform CLI packages is the no-binary stand-in at the root", () => {
    const platforms = Object.keys(rootLock.packages[`node_modules/${SDK}`]!.optionalDependencies!);
    expect(platforms.length).toBeGreaterThan(0);
    for (const name of platforms) {
      expect(rootPkg.overrides![name], name).toMatch(/^file:.*agents\/no-binary$/);
      const entries = Object.entries(rootLock.packages).filter(([k]) => k.endsWith(`/${name}`));
      expect(entries, name).toEqual([
        [expect.any(String), { resolved: 'agents/no-binary', link: true }],
      ]);
    }
    expect(rootLock.packages['agents/no-binary']).toMatchObject({ optional: true, os: ['none'] });
  });

  it('E10 packaging: no Codex at the root at all', () => {
    expect(rootPkg.dependencies['@openai/codex']).toBeUndefined();
    expect(Object.keys(rootLock.packages).filter((k) => k.includes('@openai/codex'))).toEqual([]);
  });

  it('E10 packaging: agents/ pins exactly, the Claude SDK at the version the root imports', () => {
    for (const [name, spec] of Object.entries(agentsPkg.dependencies)) {
      expect(spec, name).toMatch(/^\d+\.\d+\.\d+$/);
      expect(agentsLock.packages[`node_modules/${name}`]?.version, name).toBe(spec);
    }
    expect(agentsPkg.dependencies[SDK]).toBe(rootPkg.dependencies[SDK]);
    // Here the CLI is the real registry package (its tarball's hash), not the stand-in.
    expect(agentsLock.packages[`node_modules/${SDK}-linux-x64`]).toMatchObject({
      version: agentsPkg.dependencies[SDK],
      integrity: expect.stringMatching(/^sha512-/),
    });
  });
});
