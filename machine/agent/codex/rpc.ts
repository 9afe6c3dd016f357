import { spawn } from 'node:child_process';
import { parseIncoming } from './parse.ts';
import { markedProcesses, newRunMark, RUN_MARK_ENV } from '../process-tree.ts';
import { signalTree, treeOf, whenGone } from './process-tree.ts';
import type { RequestId } from './generated/RequestId.ts';

// One `codex app-server` child and the JSON-RPC over its stdio: newline-delimited messages
// without the `jsonrpc` field. Its stdin is the request channel, so it stays a pipe (ending it is
// how the server learns the client left). It leads its own process group; close() ends stdin,
// sends SIGTERM to every group of its tree, SIGKILL after a grace, and returns once the child
// is reaped and every process of the tree is gone. E10 faults: the child's environment carries a
// mark of its own, inherited by every command it runs, so what Codex left when it died (a command
// in a session of its own, orphaned; the native server its launcher left) is found and ended too.

export const CLOSE_GRACE_MS = 2_000;
const GONE_LIMIT_MS = 5_000;
const STDERR_KEEP_CHARS = 4_000;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Error codes this client gives to requests it could not complete. */
export const RPC_CLOSED = -32099;
export const METHOD_NOT_FOUND = -32601;

export type ServerRequestHandler = (method: string, params: unknown, id: RequestId) => void;

export type AppServer = {
  readonly pid: number;
  request(method: string, params: unknown): Promise<unknown>;
  notify(method: string, params?: unknown): void;
  respond(id: RequestId, result: unknown): void;
  respondError(id: RequestId, code: number, message: string): void;
  /** Resolves when the child has exited (for any reason); carries the last of its stderr. */
  readonly exited: Promise<{ code: number | null; signal: string | null; stderr: string }>;
  close(): Promise<void>;
};

export type AppServerOptions = {
  command: string;
  args: readonly string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  onNotification(method: string, params: unknown): void;
  onRequest: ServerRequestHandler;
  /** A line that is not a message this client understands (logged by the caller, not acted on). */
  onBadLine?(message: string): void;
};

export function startAppServer(o: AppServerOptions): AppServer {
  const mark = newRunMark();
  const child = spawn(o.command, [...o.args], {
    cwd: o.cwd,
    env: { ...(o.env ?? process.env), [RUN_MARK_ENV]: mark },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid ?? -1;
  let stderr = '';
  let nextId = 1;
  let gone = false;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.stdin.on('error', () => {}); // a write after the child left is answered by `exited`
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr = (stderr + d).slice(-STDERR_KEEP_CHARS)));

  const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>(
    (resolve) => {
      let settled = false;
      const done = (code: number | null, signal: string | null, why?: string) => {
        if (settled) return;
        settled = true;
        gone = true;
        const tail = stderr.trim().split('\n').at(-1) ?? '';
        const text =
          why ?? `codex app-server exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ''}`;
        for (const p of pending.values()) p.reject(new RpcError(RPC_CLOSED, text));
        pending.clear();
        resolve({ code, signal, stderr: why ?? stderr });
      };
      child.once('exit', (code, signal) => done(code, signal));
      // Never started (no such file, not executable): said with the path that was tried.
      child.once('error', (e) => done(null, null, `cannot start ${o.command}: ${e.message}`));
    },
  );

  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      const parsed = parseIncoming(line);
      if (!parsed.ok) {
        o.onBadLine?.(parsed.message);
        continue;
      }
      const m = parsed.value;
      if (m.kind === 'notification') o.onNotification(m.method, m.params);
      else if (m.kind === 'request') o.onRequest(m.method, m.params, m.id);
      else {
        const p = typeof m.id === 'number' ? pending.get(m.id) : undefined;
        if (p === undefined) continue;
        pending.delete(m.id as number);
        if (m.kind === 'response') p.resolve(m.result);
        else p.reject(new RpcError(m.code, m.message));
      }
    }
  });

  const write = (message: object) => {
    if (!gone) child.stdin.write(JSON.stringify(message) + '\n');
  };

  let closing: Promise<void> | null = null;
  return {
    pid,
    exited,
    request(method, params) {
      if (gone) return Promise.reject(new RpcError(RPC_CLOSED, 'codex app-server is not running'));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        write({ id, method, params });
      });
    },
    notify: (method, params) => write(params === undefined ? { method } : { method, params }),
    respond: (id, result) => write({ id, result }),
    respondError: (id, code, message) => write({ id, error: { code, message } }),
    close: () =>
      (closing ??= (async () => {
        // The tree while it has one; and whatever carries the mark, orphaned or not.
        const reach = () => [
          ...(gone ? [] : treeOf(pid)),
          ...markedProcesses(mark).flatMap((p) => treeOf(p)),
        ];
        const tree = reach();
        child.stdin.end();
        signalTree(tree, 'SIGTERM');
        // A stopped process acts on SIGTERM only once it runs again.
        signalTree(tree, 'SIGCONT');
        const killer = setTimeout(
          () => signalTree(reach().concat(tree), 'SIGKILL'),
          CLOSE_GRACE_MS,
        );
        await exited;
        clearTimeout(killer);
        // Whatever outlived the server (a command in a group of its own) ends now.
        const left = reach().concat(tree);
        signalTree(left, 'SIGKILL');
        await whenGone(left, GONE_LIMIT_MS);
      })()),
  };
}
