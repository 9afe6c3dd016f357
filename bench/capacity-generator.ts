// One process of bench:capacity's load generator (bench/capacity.ts forks several): it holds
// whole rooms — a phone and a machine socket each, both from its own loopback source address —
// on the servers it is told about, answers every ping as a real client does, and on request makes
// a share of its rooms trade one stamped 1 KiB message a second each way, recording each
// message's forward latency (send and receive are both here: one clock).
import type net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { clientFrame, FrameReader, msgText, openSocket, PONG, stampOffset } from './relay-load.ts';

export type GeneratorRequest =
  | { type: 'open'; server: string; port: number; rooms: string[]; localAddress?: string }
  | { type: 'traffic'; server: string; rooms: string[]; seconds: number; size: number }
  | { type: 'status' }
  | { type: 'close' };
export type GeneratorReply =
  | {
      type: 'opened';
      server: string;
      sockets: number;
      failed: number;
      /** Why joins failed, counted by reason (the refusal's words, never guessed). */
      reasons: Record<string, number>;
      /** When each failed join failed (epoch ms), to lay beside the server's ping sweeps. */
      failedAtMs: number[];
      /** This process's longest event-loop delay while opening (ms): a stalled generator sends
       * its hellos late, and the server's deadlines count that time too. */
      loopMaxMs: number;
    }
  | {
      type: 'traffic-done';
      server: string;
      /** Per message received: when it was sent and how long it took (µs, monotonic clock). */
      sentUs: number[];
      latenciesUs: number[];
      /** When each ping of this server reached one of this process's sockets during the traffic. */
      pingsUs: number[];
      sent: number;
      received: number;
    }
  | { type: 'status'; open: Record<string, number>; lost: Record<string, number> }
  | { type: 'closed' };

const PREFIX_BYTES = 80; // the envelope up to the end of the 16-digit stamp
const M = 'm'.charCodeAt(0);
const OPEN_BATCH = 50;
const HELLO_OK = Buffer.from('{"kind":"hello-ok"');
const HELLO_LIMIT_MS = 30_000;

type Side = { socket: net.Socket; onMsg: (prefix: Buffer, len: number) => void };
/** Per server, while its traffic runs: where its pings' arrival times go. */
const pingLog = new Map<string, number[]>();
type Room = { id: string; phone: Side; machine: Side };

const rooms = new Map<string, Map<string, Room>>(); // server → room id → room
const open = new Map<string, number>();
const lost = new Map<string, number>();
let closing = false;
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const send = (m: GeneratorReply) => process.send?.(m);

// One connect() per event-loop turn. The kernel's search for a free ephemeral port makes
// connect() cost this process up to 2–6 ms of system CPU per socket once ~9,000 are open from one
// address to one port (bench/capacity.ts header); Node runs every connect of a batch in one
// stretch of nextTicks, so 100 of them held back, for seconds on a loaded machine, the replies
// of sockets already open — whose hellos then reached the relay after its 5 s deadline (D2).
const connectTurns: Array<() => void> = [];
const nextConnectTurn = () =>
  new Promise<void>((resolve) => {
    connectTurns.push(resolve);
    if (connectTurns.length === 1) setImmediate(takeConnectTurn);
  });
function takeConnectTurn(): void {
  connectTurns.shift()?.();
  if (connectTurns.length > 0) setImmediate(takeConnectTurn);
}

async function connect(
  server: string,
  port: number,
  room: string,
  role: string,
  localAddress: string | undefined,
): Promise<Side> {
  await nextConnectTurn();
  const { socket, rest, onData } = await openSocket(port, 'ws', localAddress);
  const side: Side = { socket, onMsg: () => undefined };
  // null = hello-ok; otherwise why the join failed.
  let joined!: (why: string | null) => void;
  const helloOk = new Promise<string | null>((r) => (joined = r));
  let first = true;
  // Lost = a socket that had joined and was then closed by the server; a refused join (an error
  // frame instead of hello-ok, or none within the limit) is a failure to open, not a loss.
  let member = false;
  const reader = new FrameReader(
    PREFIX_BYTES,
    (prefix, len) => {
      if (first) {
        first = false;
        const ok = len >= HELLO_OK.length && prefix.subarray(0, HELLO_OK.length).equals(HELLO_OK);
        return joined(ok ? null : `first frame: ${prefix.toString('latin1', 0, len)}`);
      }
      if (prefix[9] === M) side.onMsg(prefix, len); // presence frames are not messages
    },
    () => {
      socket.write(PONG);
      pingLog.get(server)?.push(nowUs());
    },
  );
  onData((d) => reader.push(d));
  if (rest.length) reader.push(rest);
  socket.on('error', () => undefined);
  socket.once('close', () => {
    open.set(server, (open.get(server) ?? 1) - 1);
    joined('closed before hello-ok');
    if (member && !closing) lost.set(server, (lost.get(server) ?? 0) + 1);
  });
  open.set(server, (open.get(server) ?? 0) + 1);
  socket.write(clientFrame(JSON.stringify({ kind: 'hello', room, role })));
  const timer = setTimeout(() => joined(`no hello-ok within ${HELLO_LIMIT_MS} ms`), HELLO_LIMIT_MS);
  const why = await helloOk;
  clearTimeout(timer);
  if (why !== null) {
    socket.destroy();
    throw new Error(why);
  }
  member = true;
  return side;
}

async function openRooms(r: Extract<GeneratorRequest, { type: 'open' }>): Promise<GeneratorReply> {
  const mine = rooms.get(r.server) ?? new Map<string, Room>();
  rooms.set(r.server, mine);
  let failed = 0;
  const reasons: Record<string, number> = {};
  const failedAtMs: number[] = [];
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  for (let i = 0; i < r.rooms.length; i += OPEN_BATCH) {
    await Promise.all(
      r.rooms.slice(i, i + OPEN_BATCH).map(async (id) => {
        try {
          const phone = await connect(r.server, r.port, id, 'phone', r.localAddress);
          const machine = await connect(r.server, r.port, id, 'machine', r.localAddress);
          mine.set(id, { id, phone, machine });
        } catch (e) {
          failed++;
          failedAtMs.push(Date.now());
          // Numbers (ports, ms) vary per socket; the words say which limit or failure it was.
          const why = ((e as NodeJS.ErrnoException).code ?? (e as Error).message)
            .replace(/\d+/g, 'N')
            .slice(0, 120);
          reasons[why] = (reasons[why] ?? 0) + 1;
        }
      }),
    );
  }
  delay.disable();
  const loopMaxMs = delay.max / 1e6;
  // Open sockets (a room whose machine was refused keeps its phone: it is held all the same).
  return {
    type: 'opened',
    server: r.server,
    sockets: open.get(r.server) ?? 0,
    failed,
    reasons,
    failedAtMs,
    loopMaxMs,
  };
}

/** One message a second each way per room, spread evenly over the second; bounded in time. */
async function traffic(r: Extract<GeneratorRequest, { type: 'traffic' }>): Promise<GeneratorReply> {
  const mine = rooms.get(r.server) ?? new Map<string, Room>();
  const active = r.rooms.map((id) => mine.get(id)).filter((x): x is Room => x !== undefined);
  const latenciesUs: number[] = [];
  const sentUs: number[] = [];
  const pingsUs: number[] = [];
  pingLog.set(r.server, pingsUs);
  let sent = 0;
  let received = 0;
  const stampAt = (room: string) => stampOffset(room);
  const onMsg = (room: string) => (prefix: Buffer, len: number) => {
    const at = stampAt(room);
    if (len < at + 16) return;
    received++;
    const stamp = Number(prefix.toString('latin1', at, at + 16));
    sentUs.push(stamp);
    latenciesUs.push(nowUs() - stamp);
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
  pingLog.delete(r.server);
  return { type: 'traffic-done', server: r.server, sentUs, latenciesUs, pingsUs, sent, received };
}

// A normal exit on SIGTERM, so --cpu-prof (GEN_PROF_DIR) can write its profile.
process.on('SIGTERM', () => process.exit(0));
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
