import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { agentsState, STAMP_FILE } from './state.ts';
import { createHash } from 'node:crypto';

// E10 packaging: `npm run agents:install` and `npm test` install the agents' CLIs only when
// agents/node_modules does not hold what agents/package-lock.json pins.

const tmp = makeTmpDir('agents-state-');
afterAll(() => tmp.cleanup());

const LOCK = JSON.stringify({ lockfileVersion: 3, packages: { '': {} } });
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function agentsFolder(name: string): string {
  const agents = path.join(tmp.dir, name);
  mkdirSync(path.join(agents, 'node_modules', '@x', 'cli'), { recursive: true });
  writeFileSync(path.join(agents, 'package-lock.json'), LOCK);
  writeFileSync(path.join(agents, 'node_modules', '@x', 'cli', 'package.json'), '{}');
  writeFileSync(
    path.join(agents, 'node_modules', '.package-lock.json'),
    JSON.stringify({ packages: { 'node_modules/@x/cli': { version: '1.0.0' } } }),
  );
  writeFileSync(path.join(agents, 'node_modules', STAMP_FILE), sha(LOCK));
  return agents;
}

describe('E10 packaging: are the agents installed', () => {
  it('E10 packaging: installed from this very lockfile, every package still there: nothing to do', () => {
    expect(agentsState(agentsFolder('ok'))).toEqual({ ok: true });
  });

  it('E10 packaging: never installed (no stamp: a fresh clone, or an install that stopped)', () => {
    const agents = agentsFolder('fresh');
    rmSync(path.join(agents, 'node_modules'), { recursive: true });
    expect(agentsState(agents)).toEqual({ ok: false, why: 'agents/node_modules is not installed' });
  });

  it('E10 packaging: the lockfile changed since (a version bump, an agent added)', () => {
    const agents = agentsFolder('bumped');
    writeFileSync(path.join(agents, 'package-lock.json'), LOCK.replace('3', '4'));
    expect(agentsState(agents)).toEqual({
      ok: false,
      why: 'agents/package-lock.json changed since the last install',
    });
  });

  it('E10 packaging: a package deleted by hand since (the space taken back)', () => {
    const agents = agentsFolder('deleted');
    rmSync(path.join(agents, 'node_modules', '@x'), { recursive: true });
    expect(agentsState(agents)).toEqual({
      ok: false,
      why: 'agents/node_modules/@x/cli is missing',
    });
  });
});
