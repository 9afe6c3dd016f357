// A fault proxy between executor and lane, over real sockets: HTTP is passed through (or its
// answer body rewritten by the test, e.g. the capabilities a different server would send); each
// WebSocket is paired with its own upstream socket to the lane, and every frame goes through a
// rule that may pass, drop, duplicate or hold it. cut() kills every live pair at once (both
// sides see the connection die, as on a network drop); inject() writes a frame of the test's
// choosing to either side.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as WsModule from 'ws';

const require = createRequire(import.meta.url);
const ws = require(
  join(dirname(require.resolve('ws/package.json')), 'index.js'),
) as typeof WsModule;

export type Direction = 'up' | 'down'; // up: executor → lane; down: lane → executor
export type FrameAction = 'pass' | 'drop' | 'dup' | 'hold' | { readonly replace: string };
export type SeenFrame = {
  readonly dir: Direction;
  readonly text: string;
  readonly pair: number;
  readonly action: FrameAction;
};
export type FrameRule = (dir: Direction, text: string, pair: number) => FrameAction;
/** Returns the body to send instead of the lane's, or null to pass it as it came. */
export type HttpRewrite = (path: string, body: string) => string | null;

export type FaultProxy = Awaited<ReturnType<typeof startFaultProxy>>;

export const startFaultProxy = async (target: { httpUrl: string; wsUrl: string }) => {
  const seen: SeenFrame[] = [];
  const waiters: Array<{ pred: (f: SeenFrame) => boolean; resolve: (f: SeenFrame) => void }> = [];
  let rule: FrameRule = () => 'pass';
  let rewrite: HttpRewrite = () => null;
  const held: Array<{ to: WsModule.WebSocket; text: string }> = [];
  let pairs: Array<{ id: number; device: WsModule.WebSocket; lane: WsModule.WebSocket }> = [];
  let nextPair = 0;
  let upgradesRefused = false;

  const record = (f: SeenFrame) => {
    seen.push(f);
    for (const w of [...waiters]) {
      if (w.pred(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const up = request(
      new URL(req.url ?? '/', target.httpUrl),
      { method: req.method, headers: req.headers },
      (r) => {
        const parts: Buffer[] = [];
        r.on('data', (b: Buffer) => parts.push(b));
        r.on('end', () => {
          const body = Buffer.concat(parts).toString();
          const out = Buffer.from(rewrite(req.url ?? '/', body) ?? body);
          const headers = { ...r.headers, 'content-length': String(out.length) };
          delete headers['transfer-encoding'];
          res.writeHead(r.statusCode ?? 502, headers);
          res.end(out);
        });
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  const wss = new ws.WebSocketServer({ noServer: true, maxPayload: 4 * 1024 * 1024 });

  server.on('upgrade', (req, socket, head) => {
    if (upgradesRefused) {
      socket.end(
        'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (device) => {
      const id = nextPair++;
      const lane = new ws.WebSocket(target.wsUrl, {
        perMessageDeflate: false,
        maxPayload: 4 * 1024 * 1024,
      });
      const pair = { id, device, lane };
      pairs.push(pair);
      const early: string[] = [];
      const forward = (dir: Direction, to: WsModule.WebSocket, text: string) => {
        const action = rule(dir, text, id);
        record({ dir, text, pair: id, action });
        if (action === 'drop') return;
        if (action === 'hold') return void held.push({ to, text });
        if (to.readyState === ws.WebSocket.OPEN) {
          to.send(typeof action === 'object' ? action.replace : text);
          if (action === 'dup') to.send(text);
        }
      };
      device.on('message', (d) => {
        const text = d.toString();
        if (lane.readyState === ws.WebSocket.OPEN) forward('up', lane, text);
        else early.push(text);
      });
      lane.on('open', () => {
        for (const text of early.splice(0)) forward('up', lane, text);
      });
      lane.on('message', (d) => forward('down', device, d.toString()));
      const drop = () => {
        pairs = pairs.filter((p) => p !== pair);
        device.terminate();
        lane.terminate();
      };
      lane.on('close', drop);
      lane.on('error', drop);
      device.on('close', drop);
      device.on('error', drop);
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    setRule(r: FrameRule) {
      rule = r;
    },
    setHttpRewrite(r: HttpRewrite) {
      rewrite = r;
    },
    /** The next frame (past ones from index `since`) matching pred. */
    waitFrame(pred: (f: SeenFrame) => boolean, since = 0): Promise<SeenFrame> {
      const f = seen.slice(since).find(pred);
      if (f) return Promise.resolve(f);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
    /** Severs every live connection, both halves, with no close handshake. */
    cut() {
      for (const p of pairs.splice(0)) {
        p.device.terminate();
        p.lane.terminate();
      }
    },
    /** Sends held frames on (to sockets still open), in order. */
    release() {
      for (const h of held.splice(0)) if (h.to.readyState === ws.WebSocket.OPEN) h.to.send(h.text);
    },
    inject(dir: Direction, text: string) {
      const p = pairs.at(-1);
      if (!p) throw new Error('no live connection to inject into');
      (dir === 'down' ? p.device : p.lane).send(text);
    },
    refuseUpgrades(on: boolean) {
      upgradesRefused = on;
    },
    get livePairs() {
      return pairs.length;
    },
    async close() {
      for (const p of pairs.splice(0)) {
        p.device.terminate();
        p.lane.terminate();
      }
      wss.close();
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    },
  };
};

export const parseFrame = (f: SeenFrame): Record<string, unknown> =>
  JSON.parse(f.text) as Record<string, unknown>;
