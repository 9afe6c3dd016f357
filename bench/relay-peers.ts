// What both relay benchmarks share (bench/relay.ts, bench/relay-redis.ts): server processes
// built as plain JavaScript, raw-socket peers joined to rooms, the bounded throughput drive, and
// /proc readings. One load generator for every variant is the point of the comparison.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import url from 'node:url';
import { bundled } from '../testkit/bundles.ts';
import { startProcess, whenReady } from '../testkit/process.ts';
import { clientFrame, FrameReader, msgText, openSocket, PONG } from './relay-load.ts';

export const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');
export const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
export const SECONDS = arg('seconds', 2);
export const MEMORY_SOCKETS = arg('sockets', 10_000);
const MAX_MESSAGES_PER_RUN = 5_000_000;
const READY_LIMIT_MS = 10_000;
const STOP_GRACE_MS = 3_000;
const CLK_TCK = 100;

/** A free loopback port (redis-server refuses --port 0). */
export { freePort } from '../testkit/ports.ts';

export const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
export const fmt = (x: number, d = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
export const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
export const machineLine = () =>
  `${new Date().toISOString()} · ${os.cpus()[0]?.model} × ${os.cpus().length} · Node ${process.version} · load ${load()}`;

// Every server runs as plain JavaScript that esbuild builds for this run, not under tsx: with
// tsx's runtime hooks loaded, a process of many TypeScript modules (the relay) falls into
// back-to-back mark-compacts under 16 KiB traffic that a one-file process (the bare forwarder)
// does not (the same relay bundle: ~14 us per message without tsx, ~25 with `--import tsx`) —
// a loader artifact that must not count against one side only. See docs/relay.md.
// Built once per run: replicas start together and must not race on one output file.
const BUILD_DIR = path.join(root, 'node_modules/.cache/bench-relay');
export const built = (entry: string): Promise<string> => bundled(entry, BUILD_DIR);

export type Proc = { pid: number; child: ChildProcess; port: number; stop(): Promise<void> };

/**
 * A server in its own group (testkit/process.ts); resolves with the port once `ready` matches a
 * line it prints. Its stderr still reaches ours, as when it was inherited: a benchmark's reader
 * sees a server's complaints as they come.
 */
export async function launch(
  cmd: string,
  args: string[],
  ready: RegExp,
  dir: string,
  portOf: (m: RegExpExecArray) => number = (m) => Number(m[1]),
): Promise<Proc> {
  const p = startProcess(path.basename(cmd), cmd, args, { cwd: root, closeStdin: true });
  p.child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
  const m = await whenReady(p, ready, READY_LIMIT_MS);
  return {
    pid: p.pid,
    child: p.child,
    port: portOf(m),
    async stop() {
      await p.stop({ graceMs: STOP_GRACE_MS, killLeftovers: true });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Our relay as a bundle, limits opened for load, rate limits off; `extra` e.g. `--redis`. */
export async function startRelayProcess(extra: string[] = []): Promise<Proc> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-relay-'));
  const args = [
    await built('relay/main.ts'),
    ...['--port', '0', '--no-rate-limits', '--log-level', 'error', '--data-dir', dir],
    ...['--max-connections', '100000', '--max-connections-per-ip', '100000'],
    ...['--max-buffered-bytes', String(8 * 1024 * 1024)],
    ...extra,
  ];
  return launch(process.execPath, args, /listening on ws:\/\/[^:]+:(\d+)/, dir);
}

export function cpuMicros(pid: number): number {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) / CLK_TCK) * 1e6;
}
/**
 * On-CPU time of every thread of `pid` in ns (schedstat): the main thread, V8's GC helpers and
 * libuv's pool, with the precision a 1 s slice needs (clock ticks are 10 ms). Falls back to
 * cpuMicros where the kernel has no schedstat.
 */
export function cpuNs(pid: number): number {
  let ns = 0;
  try {
    for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        /* a thread that ended between the two reads: its time is in no later reading either */
      }
    }
    return ns;
  } catch {
    return cpuMicros(pid) * 1_000;
  }
}
export function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1]);
}

export type Peer = { socket: net.Socket; onFrame: (prefix: Buffer, len: number) => void };
/** Where a peer connects: a WebSocket relay, or the raw TCP pipe's own join line. */
export type Endpoint = { port: number; kind: 'ws' | 'tcp' };
export const M = 'm'.charCodeAt(0);

export async function connectPeer(
  at: Endpoint,
  room: string,
  role: 'machine' | 'phone',
  prefixBytes: number,
): Promise<Peer> {
  const { socket, rest, onData } = await openSocket(at.port, at.kind);
  const peer: Peer = { socket, onFrame: () => undefined };
  const reader = new FrameReader(
    prefixBytes,
    (p, n) => peer.onFrame(p, n),
    () => socket.write(PONG),
  );
  let ready!: () => void;
  const joined = new Promise<void>((r) => (ready = r));
  if (at.kind === 'tcp') {
    let skip = 3; // "ok\n"
    onData((d: Buffer) => {
      if (skip > 0) {
        const k = Math.min(skip, d.length);
        skip -= k;
        if (skip === 0) ready();
        d = d.subarray(k);
      }
      if (d.length) reader.push(d);
    });
    socket.write(`${room} ${role}\n`);
  } else {
    peer.onFrame = () => ready(); // the first frame is hello-ok
    onData((d: Buffer) => reader.push(d));
    if (rest.length) reader.push(rest);
    socket.write(clientFrame(JSON.stringify({ kind: 'hello', room, role })));
  }
  await joined;
  peer.onFrame = () => undefined;
  return peer;
}

let roomSeq = 0;
export const newRoom = () =>
  `r${String(++roomSeq).padStart(7, '0')}${Math.random().toString(36).slice(2, 16)}`
    .padEnd(22, 'x')
    .slice(0, 22);

export type Pair = { room: string; machine: Peer; phone: Peer };
/** `n` rooms, each with its phone joined at `phone` and then its machine at `machine`. */
export async function pairs(
  phone: Endpoint,
  machine: Endpoint,
  n: number,
  prefixBytes: number,
): Promise<Pair[]> {
  const out: Pair[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, n - i) }, async () => {
        const room = newRoom();
        const p = await connectPeer(phone, room, 'phone', prefixBytes);
        const m = await connectPeer(machine, room, 'machine', prefixBytes);
        return { room, machine: m, phone: p };
      }),
    );
    out.push(...batch);
  }
  return out;
}
export const closeAll = (ps: Pair[]) => {
  for (const p of ps) {
    p.machine.socket.destroy();
    p.phone.socket.destroy();
  }
};

/**
 * How many frames each pair keeps in flight: enough to keep a server busy through the scheduling
 * delays of a shared 2-core machine, few enough to stay far from any buffer cap. One pair at
 * 1 KiB keeps 1,024 (1 MiB): with 256, a round trip at ~300k msg/s lasted under 1 ms, so any
 * ms of delay in one of the three processes emptied the pipe and the run measured wake-up
 * latency (servers busy 35–70 % of the time, CPU per msg up to 7 µs); with 1,024 they are busy
 * 76–98 %. 16 KiB keeps 32 frames (512 KiB; 64 forwarded less), 1,000 rooms 16 or 4 per pair
 * (16 or 64 MiB in all).
 */
const windowFor = (size: number, nPairs: number) =>
  size > 4_096 ? (nPairs > 1 ? 4 : 32) : nPairs > 1 ? 16 : 1_024;

/**
 * A closed loop over `ps` that can be started and stopped: while running, each machine keeps a
 * window of `size`-byte msgs in flight and refills half of it whenever its phone has received
 * half. `delivered` counts msgs that reached a phone; `inflight` what is still on the way.
 */
export function makeFlow(ps: Pair[], size: number) {
  const window = windowFor(size, ps.length);
  const flow = { delivered: 0, inflight: 0, running: false, start, stop };
  const refills = ps.map((p) => {
    const batch = Buffer.concat(
      Array.from({ length: window / 2 }, () => clientFrame(msgText(p.room, size))),
    );
    let mine = 0;
    const refill = () => {
      if (!flow.running) return;
      p.machine.socket.write(batch);
      mine += window / 2;
      flow.inflight += window / 2;
    };
    p.phone.onFrame = (prefix) => {
      if (prefix[9] !== M) return; // presence, not a msg
      flow.delivered++;
      flow.inflight--;
      if (--mine <= window / 2) refill();
    };
    return () => {
      if (mine === 0) {
        refill();
        refill();
      }
    };
  });
  function start() {
    flow.running = true;
    for (const r of refills) r();
  }
  function stop() {
    flow.running = false;
  }
  return flow;
}

export type Slice = { msgPerSec: number; cpuUsPerMsg: number; messages: number };

/**
 * Closed-loop throughput of several servers measured in turns over the same minutes: each round
 * drives flow 0, 1, …, n-1 for `sliceMs` after `warmMs` (the order reversed every other round,
 * so a trend in the shared machine's load falls on all alike), letting each drain before the
 * next starts; CPU of each flow's `pids` from schedstat. One unrecorded round first (JIT, socket
 * buffers). The sockets stay connected throughout. Returns each flow's slices in round order.
 */
export async function driveTurns(
  flows: { flow: ReturnType<typeof makeFlow>; pids: number[] }[],
  rounds: number,
  sliceMs: number,
  warmMs = 200,
): Promise<Slice[][]> {
  const out: Slice[][] = flows.map(() => []);
  for (let r = -1; r < rounds; r++) {
    const order = flows.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) {
      const { flow, pids } = flows[i] as (typeof flows)[number];
      flow.start();
      await wait(warmMs);
      const cpu = () => pids.reduce((a, pid) => a + cpuNs(pid), 0);
      const [d0, c0, t0] = [flow.delivered, cpu(), performance.now()];
      const deadline = t0 + sliceMs;
      while (performance.now() < deadline && flow.delivered - d0 < MAX_MESSAGES_PER_RUN)
        await wait(20);
      const [d1, c1, t1] = [flow.delivered, cpu(), performance.now()];
      flow.stop();
      const drainBy = performance.now() + 2_000;
      while (flow.inflight > 0 && performance.now() < drainBy) await wait(10);
      if (flow.inflight > 0) throw new Error(`${flow.inflight} msgs never arrived`);
      const n = d1 - d0;
      if (n === 0) throw new Error(`flow ${i} delivered nothing in round ${r}`);
      if (r >= 0)
        out[i]?.push({
          msgPerSec: (n / (t1 - t0)) * 1_000,
          cpuUsPerMsg: (c1 - c0) / 1_000 / n,
          messages: n,
        });
    }
  }
  return out;
}

/**
 * Machines send `size`-byte msgs as fast as their phones receive them (a window of frames in
 * flight per pair), for SECONDS after a warm-up; CPU per message of each of `pids`.
 */
export async function drive(ps: Pair[], size: number, pids: number[]) {
  const window = windowFor(size, ps.length);
  let delivered = 0;
  let running = true;
  for (const p of ps) {
    const batch = Buffer.concat(
      Array.from({ length: window / 2 }, () => clientFrame(msgText(p.room, size))),
    );
    let inflight = 0;
    const refill = () => {
      if (!running) return;
      p.machine.socket.write(batch);
      inflight += window / 2;
    };
    p.phone.onFrame = (prefix) => {
      if (prefix[9] !== M) return; // presence, not a msg
      delivered++;
      if (--inflight <= window / 2) refill();
    };
    refill();
    refill();
  }
  const cpu = () => pids.map(cpuMicros);
  const own = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  await wait(500);
  const [d0, c0, t0, g0] = [delivered, cpu(), performance.now(), own()];
  const deadline = t0 + SECONDS * 1_000;
  while (performance.now() < deadline && delivered - d0 < MAX_MESSAGES_PER_RUN) await wait(50);
  const [d1, c1, t1, g1] = [delivered, cpu(), performance.now(), own()];
  running = false;
  closeAll(ps);
  await wait(300);
  const n = d1 - d0;
  const perProc = c1.map((c, i) => (c - (c0[i] as number)) / n);
  return {
    msgPerSec: (n / (t1 - t0)) * 1_000,
    cpuUsPerMsg: perProc.reduce((a, b) => a + b, 0),
    perProc,
    /** The load generator's own CPU per message (this process). */
    generatorUsPerMsg: (g1 - g0) / n,
  };
}
