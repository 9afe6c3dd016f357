import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import type { Log } from '../log.ts';

// E10 (desk sessions): the machine's end of the hook program's channel — a unix socket in the
// state dir (the dir is 0700, the socket 0600: only the machine's own user reaches it). Each
// connection carries one hook event (one JSON line) and gets one answer line back: `{output?}`,
// where `output` is what the hook prints for Claude Code. A connection that closes before its
// answer (the hook gave up or Claude killed it) aborts the handler's signal.

export const HOOK_SOCKET_FILE = 'hooks.sock';
/** One event's JSON at most (Claude's tool input can be large; a Write carries the file). */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** The longest path a unix socket may have on Linux (sun_path is 108 bytes with the NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

export type HookHandler = (event: unknown, gone: AbortSignal) => Promise<object | null>;

export type HookSocket = { readonly path: string; close(): Promise<void> };

export const hookSocketPath = (stateDir: string): string =>
  path.resolve(stateDir, HOOK_SOCKET_FILE);

export async function startHookSocket(o: {
  stateDir: string;
  log: Log;
  handle: HookHandler;
}): Promise<HookSocket | null> {
  const file = hookSocketPath(o.stateDir);
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH_BYTES) {
    o.log('warn', 'hooks-off', `hook socket path too long for a unix socket: ${file}`);
    return null;
  }
  // A socket left by a machine that died is removed; anything else in its place is not ours.
  try {
    if (lstatSync(file).isSocket()) unlinkSync(file);
  } catch {
    // nothing there
  }
  const open = new Set<Socket>();
  const server: Server = createServer((socket) => {
    open.add(socket);
    const gone = new AbortController();
    let text = '';
    let received = false;
    let answered = false;
    const reply = (line: string) => {
      answered = true;
      if (!socket.destroyed) socket.end(line);
    };
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('close', () => {
      open.delete(socket);
      if (!answered) gone.abort();
    });
    socket.on('data', (d: string) => {
      if (received) return;
      text += d;
      if (text.length > MAX_EVENT_BYTES) {
        received = true;
        reply('{}\n');
        return;
      }
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      received = true;
      let event: unknown;
      try {
        event = JSON.parse(text.slice(0, nl));
      } catch {
        reply('{}\n');
        return;
      }
      o.handle(event, gone.signal).then(
        (output) => reply(`${JSON.stringify(output === null ? {} : { output })}\n`),
        (e: unknown) => {
          o.log('error', 'hook-failed', (e as Error).message);
          reply('{}\n');
        },
      );
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(file, 0o600);
  } catch (e) {
    o.log('warn', 'hooks-off', `cannot listen on ${file}: ${(e as Error).message}`);
    server.close();
    return null;
  }
  return {
    path: file,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      try {
        unlinkSync(file);
      } catch {
        // already gone
      }
    },
  };
}
