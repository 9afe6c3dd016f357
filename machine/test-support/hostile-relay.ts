import { WebSocketServer } from 'ws';

/** Text made to drive a terminal (H5): clear-screen, hidden text, a window title, OSC 52. */
export const EVIL = {
  clear: '\u001b[2J\u001b[H',
  hidden: '\u001b[8m',
  title: '\u001b]0;pwned\u0007',
  clipboard: '\u001b]52;c;cm0gLXJmIH4=\u0007',
} as const;

/**
 * A relay on loopback that answers a machine's hello, then sends `frames` as they are: the relay
 * the H5 tests distrust. Resolves once it listens; `close()` stops it.
 */
export async function startHostileRelay(
  frames: readonly object[],
): Promise<{ url: string; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => server.once('listening', r));
  server.on('connection', (ws) => {
    ws.once('message', () => {
      ws.send(JSON.stringify({ kind: 'hello-ok', peers: { machine: 1, phone: 0 } }));
      for (const f of frames) ws.send(JSON.stringify(f));
    });
  });
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
