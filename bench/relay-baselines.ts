// The two baselines of `npm run bench:relay`, each run as its own process:
//   bare — the best plain `ws` forwarder (bufferutil, no deflate, each target socket corked once
//          per event-loop turn and uncorked once, as in the relay): parses
//          the first frame of a socket once to learn room and role, then forwards every later
//          frame's bytes to the other role with no checks at all. The floor any relay on ws pays.
//   tcp  — a raw TCP pipe: the first line names room and role; then bytes flow through untouched.
// Usage: tsx bench/relay-baselines.ts bare|tcp   (prints "listening <port>")
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

type Ws = import('ws').WebSocket;
const require = createRequire(import.meta.url);
const wsLib = require(
  path.join(path.dirname(require.resolve('ws/package.json')), 'index.js'),
) as typeof import('ws');

type Rooms<T> = Map<string, { machine: Set<T>; phone: Set<T> }>;
function joinRoom<T>(rooms: Rooms<T>, room: string, role: 'machine' | 'phone', peer: T) {
  let e = rooms.get(room);
  if (!e) rooms.set(room, (e = { machine: new Set(), phone: new Set() }));
  e[role].add(peer);
  return e;
}

function bare(): Promise<number> {
  // One per socket: the socket and whether it is corked this turn (a flag, as in the relay).
  type Target = { ws: Ws; socket: net.Socket; corked: boolean };
  const rooms: Rooms<Target> = new Map();
  const wss = new wsLib.WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    perMessageDeflate: false,
    maxPayload: 65_536,
    clientTracking: false,
  });
  // Writes batched per event-loop turn exactly as the relay does: each target socket is corked
  // once per turn and uncorked once (one writev), not once per frame.
  let corked: Target[] = [];
  const flush = () => {
    const q = corked;
    corked = [];
    for (const t of q) {
      t.corked = false;
      t.socket.uncork();
    }
  };
  const opts = { binary: false } as const;
  wss.on('connection', (ws: Ws) => {
    const me: Target = {
      ws,
      socket: (ws as unknown as { _socket: net.Socket })._socket,
      corked: false,
    };
    me.socket.setNoDelay(true);
    let targets: Set<Target> | null = null;
    ws.on('message', (data: Buffer) => {
      if (targets === null) {
        const h = JSON.parse(data.toString()) as { room: string; role: 'machine' | 'phone' };
        const e = joinRoom(rooms, h.room, h.role, me);
        targets = h.role === 'machine' ? e.phone : e.machine;
        ws.send('{"kind":"hello-ok","peers":{"machine":1,"phone":1}}');
        return;
      }
      for (const t of targets) {
        if (!t.corked) {
          t.corked = true;
          t.socket.cork();
          if (corked.push(t) === 1) process.nextTick(flush);
        }
        t.ws.send(data, opts);
      }
    });
  });
  return new Promise((r) => wss.on('listening', () => r((wss.address() as net.AddressInfo).port)));
}

function tcp(): Promise<number> {
  const rooms: Rooms<net.Socket> = new Map();
  const server = net.createServer((s) => {
    s.setNoDelay(true);
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const nl = buf.indexOf(10);
      if (nl === -1) return;
      s.removeListener('data', onData);
      const [room, role] = buf.subarray(0, nl).toString().split(' ') as [
        string,
        'machine' | 'phone',
      ];
      const e = joinRoom(rooms, room, role, s);
      const others = role === 'machine' ? e.phone : e.machine;
      const forward = (chunk: Buffer) => {
        for (const o of others) o.write(chunk);
      };
      s.on('data', forward);
      s.write('ok\n');
      const rest = buf.subarray(nl + 1);
      if (rest.length) forward(rest);
    };
    s.on('data', onData);
    s.on('error', () => undefined);
  });
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () => r((server.address() as net.AddressInfo).port)),
  );
}

const which = process.argv[2];
const port = await (which === 'bare'
  ? bare()
  : which === 'tcp'
    ? tcp()
    : Promise.reject(new Error('bare|tcp')));
process.stdout.write(`listening ${port}\n`);
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
