import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { liveGroupMembers, REPO } from './start/children.ts';
import { READY_LINE, START_ENV } from './start/config.ts';

// `npm start` as a user runs it — a real npm process in its own group, on ports of
// the test's own, in a fresh data folder — answers on every part, and Ctrl-C (SIGINT to the
// group) leaves nothing running. A second start reuses the state.

const READY_TIMEOUT_MS = 150_000;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dsh-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Every live process whose parent chain leads to `root` (root included). */
function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      parentOf.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (!found.has(pid) && found.has(ppid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found];
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

function pgidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

async function npmStart(env: Record<string, string>) {
  const child = spawn('npm', ['start'], {
    cwd: REPO,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  const pid = child.pid!;
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`npm start not ready:\n${out}`)), READY_TIMEOUT_MS);
    const check = () => {
      if (out.includes(READY_LINE)) {
        clearTimeout(t);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(t);
      reject(new Error(`npm start exited before it was ready:\n${out}`));
    });
  });
  return {
    pid,
    output: () => out,
    exited,
    /** Ctrl-C: SIGINT to npm's group; resolves with npm's exit code and what was running. */
    async interrupt() {
      const tree = descendants(pid);
      const groups = [...new Set(tree.filter(alive).map(pgidOf))];
      process.kill(-pid, 'SIGINT');
      const code = await exited;
      return { code, tree, groups };
    },
  };
}

describe('npm start: the whole demo', () => {
  it('§1: starts relay, machine with the device lane, an enrolled executor and the app; each answers; Ctrl-C stops every process; a second start reuses .data', async () => {
    const [relayPort, appPort, lanePort] = [await freePort(), await freePort(), await freePort()];
    const env = {
      [START_ENV.dataDir]: dataDir,
      [START_ENV.relayPort]: String(relayPort),
      [START_ENV.appPort]: String(appPort),
      [START_ENV.lanePort]: String(lanePort),
    };
    const first = await npmStart(env);
    try {
      const health = await fetch(`http://127.0.0.1:${relayPort}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true });
      const app = await fetch(`http://127.0.0.1:${appPort}/`);
      expect(app.status).toBe(200);
      expect(await app.text()).toMatch(/<script[^>]+type="module"/);
      const code = readFileSync(path.join(dataDir, 'machine/pairing-code.txt'), 'utf8').trim();
      expect(first.output()).toContain(`http://127.0.0.1:${appPort}/#pair=${code}`);
      expect(first.output()).toContain('▄'); // the pairing QR
      expect(first.output()).toMatch(/\[start\] device dev_\S+ enrolled/);
      // U5: quiet by default; H6: the printed enrollment banner is the machine's, not shown here.
      expect(first.output()).not.toMatch(/relay-connected|device-online|DSH_DEVICE_TOKEN=/);
      const caps = await fetch(`http://127.0.0.1:${lanePort}/v1/capabilities`);
      expect(await caps.json()).toMatchObject({ deviceExecutor: { enabled: true } });
      expect(existsSync(path.join(dataDir, 'workspace/.git'))).toBe(true);
      expect(existsSync(path.join(dataDir, 'device-key/device.json'))).toBe(true);
    } finally {
      const { code, tree, groups } = await first.interrupt();
      expect(code).toBe(0);
      // npm, the start script, and relay, app, machine, device each in a group of its own
      expect(tree.length).toBeGreaterThanOrEqual(6);
      expect(groups.length).toBeGreaterThanOrEqual(5);
      expect(tree.filter(alive)).toEqual([]);
      for (const g of groups) expect(liveGroupMembers(g)).toEqual([]);
    }
    expect(first.output()).toContain('everything stopped');

    const second = await npmStart(env);
    const { code, tree } = await second.interrupt();
    expect(code).toBe(0);
    expect(tree.filter(alive)).toEqual([]);
    expect(second.output()).toMatch(/device dev_\S+ already enrolled/);
    expect(second.output()).not.toContain('(created, a git repository)');
    expect(second.output()).not.toContain('building the app');
  }, 300_000);
});
