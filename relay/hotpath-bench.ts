// `npx tsx relay/hotpath-bench.ts`: what the relay's own per-frame work costs (a benchmark, not
// a test). The real Connection.onMessage forwards canonical msg frames to a phone whose ws.send
// and socket are stand-ins that do nothing, against the same stand-ins driven the way the bare
// forwarder of bench:relay drives them (its UTF-8 check, which ws does for it, included), both
// on the same frames: views into 64 KiB read chunks, as ws hands them over. The
// difference is the cost of the rules on the hot path (first-frame state, size cap, UTF-8 check,
// envelope scan, joined-room match, D12 routing) that no socket-level run can separate from
// machine noise. CPU time, interleaved rounds, bounded in count.
import { isUtf8 } from 'node:buffer';
import type { Socket } from 'node:net';
import pino from 'pino';
import type { WebSocket } from 'ws';
import { DEFAULT_SETTINGS } from './config.ts';
import { Connection } from './connection.ts';
import type { Context } from './context.ts';
import { makeLocalPresence } from './presence.ts';
import { makeLocalRooms } from './rooms.ts';
import { realTimers } from './timers.ts';
import { makeTurn, type Corkable } from './turn.ts';

const FRAMES_PER_ROUND = 300_000;
const ROUNDS = 5;
const ROOM = 'r0000001abcdefghijklmn';

type Stub = { send(d: Buffer | string, o: object): void; bufferedAmount: number };
const stubWs = (): Stub => ({ send: () => undefined, bufferedAmount: 0 });
const stubSocket = () => ({ cork: () => undefined, uncork: () => undefined });

function frame(size: number): Buffer {
  const head = `{"kind":"msg","room":"${ROOM}","payload":"`;
  const n = size - head.length - 2;
  return Buffer.from(head + 'A'.repeat(n - (n % 4)) + '"}');
}

/** 64 copies of a frame as ws hands them over: views into the chunks a socket read returned. */
function views(size: number): Buffer[] {
  const f = frame(size);
  const perChunk = Math.max(1, Math.floor(65_536 / f.length));
  const out: Buffer[] = [];
  for (let chunk = Buffer.alloc(0); out.length < 64;) {
    if (out.length % perChunk === 0) chunk = Buffer.concat(Array<Buffer>(perChunk).fill(f));
    const k = out.length % perChunk;
    out.push(chunk.subarray(k * f.length, (k + 1) * f.length));
  }
  return out;
}

async function perFrameNs(handle: (b: Buffer) => void, frames: Buffer[]): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < FRAMES_PER_ROUND; i += 64) {
    for (let j = 0; j < 64; j++) handle(frames[j] as Buffer);
    await null; // let the per-turn uncork run, as between socket reads
  }
  const t = process.cpuUsage(t0);
  return ((t.user + t.system) * 1000) / FRAMES_PER_ROUND;
}

const rooms = makeLocalRooms();
const turn = makeTurn(realTimers);
const ctx = {
  settings: { ...DEFAULT_SETTINGS, rateLimits: false },
  timers: realTimers,
  log: pino({ level: 'silent' }),
  rooms,
  presence: makeLocalPresence(rooms),
  turn,
} as unknown as Context;
const connect = () =>
  new Connection(ctx, stubWs() as unknown as WebSocket, stubSocket() as unknown as Socket, 'ip');
const machine = connect();
const phone = connect();
phone.onMessage(Buffer.from(JSON.stringify({ kind: 'hello', room: ROOM, role: 'phone' })), false);
machine.onMessage(
  Buffer.from(JSON.stringify({ kind: 'hello', room: ROOM, role: 'machine' })),
  false,
);

// The bare forwarder's per-frame work on the same stand-ins.
const target: Corkable & { ws: Stub; socket: ReturnType<typeof stubSocket> } = {
  ws: stubWs(),
  socket: stubSocket(),
  corked: false,
};
const targets = new Set([target]);
const opts = { binary: false } as const;
const bare = (data: Buffer) => {
  if (!isUtf8(data)) return;
  for (const t of targets) {
    if (!t.corked) {
      t.corked = true;
      t.socket.cork();
      turn.uncorkLater(t);
    }
    t.ws.send(data, opts);
  }
};
const ours = (data: Buffer) => machine.onMessage(data, false);

console.log(`relay hot path, CPU ns per frame (median of ${ROUNDS} rounds of ${FRAMES_PER_ROUND})`);
console.log('| frame | relay | bare handler | relay − bare |');
console.log('|---|---|---|---|');
for (const size of [1_024, 16_384]) {
  const frames = views(size);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(await perFrameNs(ours, frames));
    b.push(await perFrameNs(bare, frames));
  }
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1] as number;
  console.log(
    `| ${size} B | ${med(a).toFixed(0)} | ${med(b).toFixed(0)} | ${(med(a) - med(b)).toFixed(0)} |`,
  );
}
