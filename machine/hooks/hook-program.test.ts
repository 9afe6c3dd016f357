import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { captureLog } from '../log.ts';
import { ensurePrivateDir } from '../links/state-dir.ts';
import { HOOK_PROGRAM } from './claude-settings.ts';
import { startHookSocket, type HookHandler } from './hook-socket.ts';

// E10: the hook program Claude Code runs, and the machine's socket it talks to.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Runs the hook program as Claude Code does: the event on stdin, the answer on stdout. */
function runHook(socket: string, stdin: string) {
  const child = spawn(process.execPath, [HOOK_PROGRAM, socket], { stdio: 'pipe' });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stdin.end(stdin);
  const exited = new Promise<{ code: number | null; stdout: string }>((r) =>
    child.on('exit', (code) => r({ code, stdout })),
  );
  return { child, exited };
}

const EVENT = {
  hook_event_name: 'PermissionRequest',
  session_id: 'abc',
  cwd: '/tmp',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
};

function stateDir() {
  const tmp = makeTmpDir('hook-state-');
  cleanups.push(tmp.cleanup);
  const dir = path.join(tmp.dir, 'state');
  ensurePrivateDir(dir);
  return dir;
}

async function socketWith(handle: HookHandler) {
  const dir = stateDir();
  const s = await startHookSocket({ stateDir: dir, log: captureLog(), handle });
  cleanups.push(() => s!.close());
  return { dir, socket: s!.path };
}

describe('E10: the hook program and the machine socket', () => {
  it('E10 hooks: with no machine running (no socket, or a stale one nobody listens on) the hook ends at once with exit 0 and no output', async () => {
    const dir = stateDir();
    const missing = await runHook(path.join(dir, 'hooks.sock'), JSON.stringify(EVENT)).exited;
    expect(missing).toEqual({ code: 0, stdout: '' });

    // A socket file left by a machine that died.
    const stale = path.join(dir, 'stale.sock');
    const server = createServer();
    await new Promise<void>((r) => server.listen(stale, r));
    await new Promise<void>((r) => server.close(() => r()));
    expect(await runHook(stale, JSON.stringify(EVENT)).exited).toEqual({ code: 0, stdout: '' });
  });

  it("E10 hooks: the socket is owner-only (0600) in an owner-only state dir (0700); the machine's answer is printed as the hook's output; garbage gets no output", async () => {
    const seen: unknown[] = [];
    const { dir, socket } = await socketWith(async (event) => {
      seen.push(event);
      return {
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message: 'no' },
        },
      };
    });
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const r = await runHook(socket, JSON.stringify(EVENT)).exited;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'no' },
      },
    });
    expect(seen).toEqual([EVENT]);
    expect(await runHook(socket, 'not json').exited).toEqual({ code: 0, stdout: '' });
    expect(seen).toHaveLength(1);
  });

  it('E10 hooks: a hook that ends while the machine waits (Claude killed it) aborts the wait, so its card closes', async () => {
    let gone: AbortSignal | undefined;
    let started!: () => void;
    const waiting = new Promise<void>((r) => (started = r));
    const { socket } = await socketWith(
      (_event, signal) =>
        new Promise((resolve) => {
          gone = signal;
          started();
          signal.addEventListener('abort', () => resolve(null));
        }),
    );
    const hook = runHook(socket, JSON.stringify(EVENT));
    await waiting;
    expect(gone!.aborted).toBe(false);
    hook.child.kill('SIGTERM');
    await hook.exited;
    await new Promise<void>((r) =>
      gone!.aborted ? r() : gone!.addEventListener('abort', () => r()),
    );
    expect(gone!.aborted).toBe(true);
  });
});
