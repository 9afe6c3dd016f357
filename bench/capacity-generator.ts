// One process of bench:capacity's load generator (bench/capacity.ts forks several): it holds
// whole rooms — a phone and a machine socket each, both from its own loopback source address —
// on the servers it is told about, answers every ping as a real client does, and on request makes
// a share of its rooms trade one stamped 1 KiB message a second each way, recording each
// message's forward latency (send and receive are both here: one clock).
import type net from 'node:net';
import { clientFrame, FrameReader, msgText, openSocket, PONG, stampOffset } from './relay-load.ts';

export type GeneratorRequest =
  | { type: 'open'; server: string; port: number; rooms: string[]; localAddress: string }
  | { type: 'traffic'; server: string; rooms: string[]; seconds: number; size: number }
  | { type: 'status' }
  | { type: 'close' };
export type GeneratorReply =
  | { type: 'opened'; server: string; sockets: number; failed: number }
  | { type: 'traffic-done'; server: string; latenciesUs: number[]; sent: number; received: number }
  | { type: 'status'; open: Record<string, number>; lost: Record<string, number> }
  | { type: 'closed' };

const PREFIX_BYTES = 80; // the envelope up to the end of the 16-digit stamp
const M = 'm'.charCodeAt(0);
const OPEN_BATCH = 50;
const HELLO_OK = Buffer.from('{"kind":"hello-ok"');
const HELLO_LIMIT_MS = 30_000;

type Side = { socket: net.Socket; onMsg: (prefix: Buffer, len: number) => void };
type Room = { id: string; phone: Side; machine: Side };

const rooms = new Map<string, Map<string, Room>>(); // server → room id → room
const open = new Map<string, number>();
const lost = new Map<string, number>();
let closing = false;
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const send = (m: GeneratorReply) => process.send?.(m);

async function connect(
  server: string,
  port: number,
  room: string,
  role: string,
  localAddress: string,
): Promise<Side> {
  const { socket, rest, onData } = await openSocket(port, 'ws', localAddress);
  const side: Side = { socket, onMsg: () => undefined };
  let joined!: (ok: boolean) => void;
  const helloOk = new Promise<boolean>((r) => (joined = r));
  let first = true;
  // Lost = a socket that had joined and was then closed by the server; a refused join (an error
  // frame instead of hello-ok, or none within the limit) is a failure to open, not a loss.
  let member = false;
  const reader = new FrameReader(
    PREFIX_BYTES,
    (prefix, len) => {
      if (first) {
        first = false;
        return joined(
          len >= HELLO_OK.length && prefix.subarray(0, HELLO_OK.length).equals(HELLO_OK),
        );
      }
      if (prefix[9] === M) side.onMsg(prefix, len); // presence frames are not messages
    },
    () => socket.write(PONG),
  );
  onData((d) => reader.push(d));
  if (rest.length) reader.push(rest);
  socket.on('error', () => undefined);
  socket.once('close', () => {
    open.set(server, (open.get(server) ?? 1) - 1);
    joined(false);
    if (member && !closing) lost.set(server, (lost.get(server) ?? 0) + 1);
  });
  open.set(server, (open.get(server) ?? 0) + 1);
  socket.write(clientFrame(JSON.stringify({ kind: 'hello', room, role })));
  const timer = setTimeout(() => joined(false), HELLO_LIMIT_MS);
  const ok = await helloOk;
  clearTimeout(timer);
  if (!ok) {
    socket.destroy();
    throw new Error('join refused');
  }
  member = true;
  return side;
}

async function openRooms(r: Extract<GeneratorRequest, { type: 'open' }>): Promise<GeneratorReply> {
  const mine = rooms.get(r.server) ?? new Map<string, Room>();
  rooms.set(r.server, mine);
  let failed = 0;
  for (let i = 0; i < r.rooms.length; i += OPEN_BATCH) {
    await Promise.all(
      r.rooms.slice(i, i + OPEN_BATCH).map(async (id) => {
        try {
          const phone = await connect(r.server, r.port, id, 'phone', r.localAddress);
          const machine = await connect(r.server, r.port, id, 'machine', r.localAddress);
          mine.set(id, { id, phone, machine });
        } catch {
          failed++;
        }
      }),
    );
  }
  // Open sockets (a room whose machine was refused keeps its phone: it is held all the same).
  return { type: 'opened', server: r.server, sockets: open.get(r.server) ?? 0, failed };
}

/** One message a second each way per room, spread evenly over the second; bounded in time. */
async function traffic(r: Extract<GeneratorRequest, { type: 'traffic' }>): Promise<GeneratorReply> {
  const mine = rooms.get(r.server) ?? new Map<string, Room>();
  const active = r.rooms.map((id) => mine.get(id)).filter((x): x is Room => x !== undefined);
  const latenciesUs: number[] = [];
  let sent = 0;
  let received = 0;
  const stampAt = (room: string) => stampOffset(room);
  const onMsg = (room: string) => (prefix: Buffer, len: number) => {
    const at = stampAt(room);
    if (len < at + 16) return;
    received++;
    latenciesUs.push(nowUs() - Number(prefix.toString('latin1', at, at + 16)));
  };
  for (const room of active) {
    room.phone.onMsg = onMsg(room.id);
    room.machine.onMsg = onMsg(room.id);
  }
  const timers: NodeJS.Timeout[] = [];
  active.forEach((room, i) => {
    const start = (1_000 * i) / Math.max(1, active.length);
    timers.push(
      setTimeout(() => {
        const tick = () => {
          for (const side of [room.machine, room.phone]) {
            side.socket.write(clientFrame(msgText(room.id, r.size, nowUs())));
            sent++;
          }
        };
        tick();
        timers.push(setInterval(tick, 1_000));
      }, start),
    );
  });
  await new Promise((resolve) => setTimeout(resolve, r.seconds * 1_000));
  for (const t of timers) clearInterval(t);
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // what is on the way arrives
  for (const room of active) room.phone.onMsg = room.machine.onMsg = () => undefined;
  return { type: 'traffic-done', server: r.server, latenciesUs, sent, received };
}

process.on('message', (m: GeneratorRequest) => {
  void (async () => {
    if (m.type === 'open') send(await openRooms(m));
    else if (m.type === 'traffic') send(await traffic(m));
    else if (m.type === 'status')
      send({ type: 'status', open: Object.fromEntries(open), lost: Object.fromEntries(lost) });
    else if (m.type === 'close') {
      closing = true;
      for (const byRoom of rooms.values())
        for (const room of byRoom.values()) {
          room.phone.socket.destroy();
          room.machine.socket.destroy();
        }
      send({ type: 'closed' });
      process.disconnect?.();
    }
  })();
});
