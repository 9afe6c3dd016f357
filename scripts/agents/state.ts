// E10 packaging: the agents' CLIs (~400 MB each) live in agents/ with a lockfile of their own, so
// the root `npm ci` (the demo's) never downloads them; `npm run agents:install` and `npm test`'s
// first step install them. Idempotent: a stamp written after a successful `npm ci --prefix agents`
// records the lockfile it installed; while it matches and every package npm recorded is still on
// disk, nothing runs.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Written into agents/node_modules (npm ci empties that folder first, so a stopped install leaves none). */
export const STAMP_FILE = '.dsh-agents-lock.sha256';

export type AgentsState = { ok: true } | { ok: false; why: string };

const lockHash = (agents: string): string =>
  createHash('sha256')
    .update(readFileSync(path.join(agents, 'package-lock.json')))
    .digest('hex');

/** Does agents/node_modules hold what agents/package-lock.json pins? */
export function agentsState(agents: string): AgentsState {
  const modules = path.join(agents, 'node_modules');
  const stamp = path.join(modules, STAMP_FILE);
  if (!existsSync(stamp)) return { ok: false, why: 'agents/node_modules is not installed' };
  if (readFileSync(stamp, 'utf8').trim() !== lockHash(agents))
    return { ok: false, why: 'agents/package-lock.json changed since the last install' };
  // npm's own record of what it installed (node_modules/.package-lock.json): each still there.
  let hidden: { packages?: Record<string, unknown> };
  try {
    hidden = JSON.parse(readFileSync(path.join(modules, '.package-lock.json'), 'utf8')) as {
      packages?: Record<string, unknown>;
    };
  } catch {
    return { ok: false, why: "npm's record of agents/node_modules is missing" };
  }
  const gone = Object.keys(hidden.packages ?? {}).find(
    (p) => !existsSync(path.join(agents, p, 'package.json')),
  );
  return gone === undefined ? { ok: true } : { ok: false, why: `agents/${gone} is missing` };
}

export type InstallResult = { code: number; output: string };

/** `npm ci --prefix agents` (agents/.npmrc applies), then the stamp; output kept for a failure. */
export function installAgents(agents: string, inherit = false): Promise<InstallResult> {
  const child = spawn('npm', ['ci', '--prefix', agents], {
    stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      const status = code ?? (signal ? 128 : 1);
      if (status === 0)
        writeFileSync(path.join(agents, 'node_modules', STAMP_FILE), lockHash(agents));
      resolve({ code: status, output });
    });
  });
}

/**
 * Installs when needed, said in one line on stdout (`<who>: npm run agents:install (<why>) … done
 * in 18.8 s`); npm's output only when it failed. True when the CLIs are there afterwards.
 */
export async function ensureAgents(agents: string, who: string): Promise<boolean> {
  const state = agentsState(agents);
  if (state.ok) return true;
  const started = performance.now();
  process.stdout.write(`${who}: npm run agents:install (${state.why}) …`);
  const r = await installAgents(agents);
  const took = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(` ${r.code === 0 ? 'done' : 'failed'} in ${took} s\n`);
  if (r.code !== 0) process.stderr.write(r.output);
  return r.code === 0;
}
