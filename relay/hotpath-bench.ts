// `npx tsx relay/hotpath-bench.ts`: what the relay's own per-frame work costs (a benchmark, not
// a test). The real Connection.onMessage forwards canonical msg frames to a phone whose ws.send
// and socket are stand-ins that do nothing, against the same stand-ins driven the way the bare
// forwarder of bench:relay drives them (its UTF-8 check, which ws does for it, included), both
// on the same frames: views into 64 KiB read chunks, as ws hands them over. The
// difference is the cost of the rules on the hot path (first-frame state, size cap, UTF-8 check,
// envelope scan, joined-room match, D12 routing) that no socket-level run can separate from
// machine noise. Two shapes: one room (64 frames per read), and 1,000 rooms taking turns (16
// frames per read, as bench:relay's 1,000-room runs), where each room's objects are out of the
// cache again by its next turn. CPU time, interleaved rounds, bounded in count.
import { isUtf8 } from 'node:buffer';
import type { Socket } from 'node:net';
import pino from 'pino';
import type { WebSocket } from 'ws';
import { DEFAULT_SETTINGS } from './config.ts';
import { Connection } from './connection.ts';
import { makeCounters } from './counters.ts';
import type { Context } from './context.ts';
import { makeLocalPresence } from './presence.ts';
import { makeLocalRooms } from './rooms.ts';
import { realTimers } from './timers.ts';
import { makeEventLoopTurn, type Corkable } from './event-loop-turn.ts';

const FRAMES_PER_ROUND = 300_000;
const ROUNDS = 5;

type Stub = { send(d: Buffer | string, o: object): void; bufferedAmount: number };
const stubWs = (): Stub => ({ send: () => undefined, bufferedAmount: 0 });
const stubSocket = () => ({ cork: () => undefined, uncork: () => undefined });
const roomId = (i: number) => `r${String(i).padStart(7, '0')}abcdefghijklmn`;

function frame(room: string, size: number): Buffer {
  const head = `{"kind":"msg","room":"${room}","payload":"`;
  const n = size - head.length - 2;
  return Buffer.from(head + 'A'.repeat(n - (n % 4)) + '"}');
}

/** `count` copies of a frame as ws hands them over: views into the chunks a socket read returned. */
function views(f: Buffer, count: number): Buffer[] {
  const perChunk = Math.max(1, Math.floor(65_536 / f.length));
  const out: Buffer[] = [];
  for (let chunk = Buffer.alloc(0); out.length < count;) {
    if (out.length % perChunk === 0) chunk = Buffer.concat(Array<Buffer>(perChunk).fill(f));
    const k = out.length % perChunk;
    out.push(chunk.subarray(k * f.length, (k + 1) * f.length));
  }
  return out;
}

/** Each room's handler gets its run of frames, then the event loop turns (uncork, clock). */
async function perFrameNs(handlers: ((b: Buffer) => void)[], frames: Buffer[][]): Promise<number> {
  const runs = Math.ceil(FRAMES_PER_ROUND / (frames.length * (frames[0] as Buffer[]).length));
  const t0 = process.cpuUsage();
  let n = 0;
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < handlers.length; k++) {
      const handle = handlers[k] as (b: Buffer) => void;
      for (const f of frames[k] as Buffer[]) handle(f);
      n += (frames[k] as Buffer[]).length;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const t = process.cpuUsage(t0);
  return ((t.user + t.system) * 1000) / n;
}

const rooms = makeLocalRooms();
const turn = makeEventLoopTurn(realTimers);
const ctx = {
  settings: { ...DEFAULT_SETTINGS, rateLimits: false },
  timers: realTimers,
  log: pino({ level: 'silent' }),
  rooms,
  presence: makeLocalPresence(rooms),
  turn,
  counters: makeCounters(),
} as unknown as Context;
const connect = () =>
  new Connection(ctx, stubWs() as unknown as WebSocket, stubSocket() as unknown as Socket, 'ip');

/** A joined machine socket of the relay per room, the phone joined first. */
function relayHandlers(ids: string[]): ((b: Buffer) => void)[] {
  return ids.map((room) => {
    const hello = (role: string) => Buffer.from(JSON.stringify({ kind: 'hello', room, role }));
    connect().onMessage(hello('phone'), false);
    const machine = connect();
    machine.onMessage(hello('machine'), false);
    return (data: Buffer) => machine.onMessage(data, false);
  });
}

/** The bare forwarder's per-frame work on the same stand-ins, one target set per room. */
function bareHandlers(ids: string[]): ((b: Buffer) => void)[] {
  const opts = { binary: false } as const;
  return ids.map(() => {
    const targets = new Set([{ ws: stubWs(), socket: stubSocket(), corked: false }]);
    return (data: Buffer) => {
      if (!isUtf8(data)) return;
      for (const t of targets) {
        if (!t.corked) {
          t.corked = true;
          t.socket.cork();
          turn.uncorkLater(t as Corkable);
        }
        t.ws.send(data, opts);
      }
    };
  });
}

console.log(`relay hot path, CPU ns per frame (median of ${ROUNDS} rounds of ${FRAMES_PER_ROUND})`);
console.log('| frames | relay | bare handler | relay − bare |');
console.log('|---|---|---|---|');
let next = 0;
for (const [label, nRooms, perRead, size] of [
  ['1 KiB, 1 room', 1, 64, 1_024],
  ['16 KiB, 1 room', 1, 64, 16_384],
  ['1 KiB, 1,000 rooms', 1_000, 16, 1_024],
] as const) {
  const ids = Array.from({ length: nRooms }, () => roomId(next++));
  const frames = ids.map((id) => views(frame(id, size), perRead));
  const ours = relayHandlers(ids);
  const bare = bareHandlers(ids);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(await perFrameNs(ours, frames));
    b.push(await perFrameNs(bare, frames));
  }
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1] as number;
  console.log(
    `| ${label} | ${med(a).toFixed(0)} | ${med(b).toFixed(0)} | ${(med(a) - med(b)).toFixed(0)} |`,
  );
}
