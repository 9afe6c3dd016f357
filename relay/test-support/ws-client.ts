// A queueing WebSocket test client: every frame the relay sends is queued, and tests take them
// in order. nextFrame(kind) fails if the next frame is of another kind, so a test also proves
// that nothing unexpected came first. Self-contained (ws and node: only) so other parts can copy it.
import { WebSocket } from 'ws';

export type Frame = { kind: string; [k: string]: unknown };
type Received = { text: string; binary: boolean };
const WAIT_LIMIT_MS = 5_000; // a safety net for a broken test, not a synchronisation

export type TestClient = {
  ws: WebSocket;
  send(frame: object | string | Buffer, opts?: { binary?: boolean }): void;
  /** Sends hello and returns the hello-ok. */
  hello(room: string, role: 'machine' | 'phone'): Promise<Frame>;
  nextRaw(): Promise<string>;
  nextFrame(kind?: string): Promise<Frame>;
  /** The one bounded wait: asserts nothing arrives within `ms`. */
  expectNoFrame(ms?: number): Promise<void>;
  /** Resolves with the close code when the socket closes. */
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
};

export async function connectClient(
  url: string,
  opts: { autoPong?: boolean; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<TestClient> {
  const ws = new WebSocket(url, {
    perMessageDeflate: false,
    autoPong: opts.autoPong ?? true,
    headers: opts.headers ?? {},
    ...(opts.localAddress === undefined ? {} : { localAddress: opts.localAddress }),
  });
  const queue: Received[] = [];
  let waiter: ((r: Received | null) => void) | null = null;
  let isClosed = false;
  ws.on('message', (data: Buffer, binary: boolean) => {
    const r = { text: data.toString('utf8'), binary };
    if (waiter) {
      const w = waiter;
      waiter = null;
      w(r);
    } else queue.push(r);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      isClosed = true;
      waiter?.(null);
      waiter = null;
      resolve({ code, reason: reason.toString() });
    });
  });
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) =>
      reject(new Error(`upgrade answered ${res.statusCode}`)),
    );
    ws.once('error', reject);
  });

  const take = (): Promise<Received> => {
    const r = queue.shift();
    if (r) return Promise.resolve(r);
    if (isClosed) return Promise.reject(new Error('socket closed with no frame queued'));
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        waiter = null;
        reject(new Error(`no frame within ${WAIT_LIMIT_MS} ms`));
      }, WAIT_LIMIT_MS);
      waiter = (got) => {
        clearTimeout(t);
        if (got) resolve(got);
        else reject(new Error('socket closed while waiting for a frame'));
      };
    });
  };

  const client: TestClient = {
    ws,
    closed,
    send(frame, opts) {
      const data =
        typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame);
      ws.send(data, { binary: opts?.binary ?? false });
    },
    async hello(room, role) {
      client.send({ kind: 'hello', room, role });
      return client.nextFrame('hello-ok');
    },
    async nextRaw() {
      return (await take()).text;
    },
    async nextFrame(kind) {
      const r = await take();
      const f = JSON.parse(r.text) as Frame;
      if (kind !== undefined && f.kind !== kind) {
        throw new Error(`expected a "${kind}" frame, got ${r.text.slice(0, 300)}`);
      }
      return f;
    },
    async expectNoFrame(ms = 40) {
      if (queue.length > 0) throw new Error(`unexpected frame: ${queue[0]?.text.slice(0, 300)}`);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => {
          waiter = null;
          resolve();
        }, ms);
        waiter = (got) => {
          clearTimeout(t);
          if (got) reject(new Error(`unexpected frame: ${got.text.slice(0, 300)}`));
          else resolve();
        };
      });
    },
    async close() {
      if (!isClosed) ws.close();
      await closed;
    },
  };
  return client;
}

/** Opens a socket expecting the upgrade to be refused; resolves with the HTTP status. */
export function expectUpgradeRefused(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('upgrade was accepted'));
    });
    ws.once('error', () => undefined);
  });
}
