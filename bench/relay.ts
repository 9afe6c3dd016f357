// `npm run bench:relay`: our relay against the best bare `ws` forwarder and a raw TCP pipe, in
// one run, on loopback, with rate limits off and one load generator (bench/relay-load.ts).
//   1. forwarded msg/s and server CPU µs per message, 1 KiB and 16 KiB, 1 pair and 1,000 rooms
//   2. p50/p99 forward latency at fixed offered rates (2,000 and 10,000 msg/s over 100 rooms),
//      the servers taking turns every 100 ms so machine noise hits them alike
//   3. resident memory per idle joined socket at 10,000 sockets
// Every loop is bounded in time and count. Options: --rounds N (default 12), --slice-ms T
// (500), --seconds S (2, latency per server), --sockets N (10000). Throughput: the three
// servers take turns over the same sockets, round after round (bench/relay-peers.ts
// driveTurns); each ratio is the median of the per-round ratios of two servers measured back to
// back, and every round is printed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientFrame, msgText, stampOffset } from './relay-load.ts';
import {
  arg,
  built,
  closeAll,
  driveTurns,
  fmt,
  launch,
  M,
  machineLine,
  makeFlow,
  median,
  MEMORY_SOCKETS,
  newRoom,
  pairs as pairsAt,
  rssKiB,
  SECONDS,
  startRelayProcess,
  wait,
  type Endpoint,
  type Proc,
  type Slice,
} from './relay-peers.ts';

const ROUNDS = arg('rounds', 12);
const SLICE_MS = arg('slice-ms', 500);
const LATENCY_ROUNDS = 3;
const LATENCY_SLICE_US = 100_000;

type Kind = 'ours' | 'bare' | 'tcp';
type Server = Proc & { kind: Kind };

async function startServer(kind: Kind): Promise<Server> {
  if (kind === 'ours') return { kind, ...(await startRelayProcess()) };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-relay-'));
  const script = await built('bench/relay-baselines.ts');
  return { kind, ...(await launch(process.execPath, [script, kind], /listening (\d+)/, dir)) };
}

const endpoint = (s: Server): Endpoint => ({ port: s.port, kind: s.kind === 'tcp' ? 'tcp' : 'ws' });
const pairs = (s: Server, n: number, prefixBytes: number) =>
  pairsAt(endpoint(s), endpoint(s), n, prefixBytes);

/** Every server's slices, round by round, over sockets opened once per scenario. */
async function throughput(ss: Server[], nPairs: number, size: number) {
  const all = await Promise.all(ss.map((s) => pairs(s, nPairs, 12)));
  try {
    const flows = all.map((ps, i) => ({ flow: makeFlow(ps, size), pids: [ss[i]?.pid as number] }));
    return await driveTurns(flows, ROUNDS, SLICE_MS);
  } finally {
    for (const ps of all) closeAll(ps);
    await wait(300);
  }
}

/** A frame whose 16-digit stamp (send time, µs) is written into a copy of `template`. */
function stamped(template: Buffer, at: number, us: number): Buffer {
  const f = Buffer.allocUnsafe(template.length);
  template.copy(f);
  for (let i = at + 15, v = us; i >= at; i--, v = Math.floor(v / 10)) f[i] = 48 + (v % 10);
  return f;
}

/**
 * Forward latency of every server over the SAME stretch of time: the generator sends one stream
 * at `rate` and hands it to the servers in turn, 100 ms each, so a burst of other work on the
 * shared machine lands on all of them alike instead of on whichever ran its own window then,
 * while the generator never drives more than one server (its load stays that of one stream).
 */
async function latency(ss: Server[], rate: number, nRooms = 100, size = 1_024) {
  const prefixBytes = stampOffset(newRoom()) + 16;
  const all = await Promise.all(ss.map((s) => pairs(s, nRooms, prefixBytes)));
  const start = process.hrtime.bigint();
  const nowUs = () => Number((process.hrtime.bigint() - start) / 1_000n);
  const samples: number[][] = ss.map(() => []);
  const warmUs = 500_000;
  const off = stampOffset(all[0]?.[0]?.room as string);
  // Pre-built frames; each send copies one and writes the stamp into the copy.
  const templates = all.map((ps) =>
    ps.map((p) => {
      const text = msgText(p.room, size);
      const frame = clientFrame(text);
      return { frame, stampAt: frame.length - Buffer.byteLength(text) + off };
    }),
  );
  all.forEach((ps, v) => {
    for (const p of ps) {
      p.phone.onFrame = (prefix, len) => {
        if (prefix[9] !== M || len < off + 16) return;
        let stamp = 0;
        for (let i = off; i < off + 16; i++) stamp = stamp * 10 + ((prefix[i] as number) - 48);
        if (stamp >= warmUs) samples[v]?.push(nowUs() - stamp);
      };
    }
  });
  const n = ss.length;
  const totalUs = warmUs + n * SECONDS * 1_000_000;
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const t = nowUs();
      const due = Math.min(Math.floor((t / 1e6) * rate), Math.floor((totalUs / 1e6) * rate));
      for (; sent < due; sent++) {
        // Message i is due at i / rate; the server owning that 100 ms slice gets it.
        const v = Math.floor((sent * 1e6) / rate / LATENCY_SLICE_US) % n;
        const k = sent % nRooms;
        const p = all[v]?.[k] as (typeof all)[number][number];
        const tpl = templates[v]?.[k] as { frame: Buffer; stampAt: number };
        p.machine.socket.write(stamped(tpl.frame, tpl.stampAt, nowUs()));
      }
      if (t < totalUs) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await wait(300);
  for (const ps of all) closeAll(ps);
  return samples.map((xs) => {
    xs.sort((a, b) => a - b);
    const q = (x: number) => xs[Math.min(xs.length - 1, Math.floor(x * xs.length))] ?? NaN;
    return { p50: q(0.5), p99: q(0.99), n: xs.length, expected: Math.round(SECONDS * rate) };
  });
}

async function memory(kind: Kind) {
  const s = await startServer(kind);
  try {
    const warm = await pairs(s, 50, 12);
    await wait(1_000);
    const r0 = rssKiB(s.pid);
    const ps = await pairs(s, MEMORY_SOCKETS / 2, 12);
    await wait(2_000);
    const r1 = rssKiB(s.pid);
    closeAll(ps);
    closeAll(warm);
    return { kibPerSocket: (r1 - r0) / MEMORY_SOCKETS, rssKiB: r1 };
  } finally {
    await s.stop();
  }
}

async function main() {
  console.log(`bench:relay ${machineLine()}`);
  const kinds: Kind[] = ['ours', 'bare', 'tcp'];
  const servers = new Map<Kind, Server>();
  for (const k of kinds) servers.set(k, await startServer(k));
  const srv = (k: Kind) => servers.get(k) as Server;
  try {
    console.log(
      `\n## Throughput (${ROUNDS} rounds; in each, ours, bare and tcp take turns over the same open sockets, ${SLICE_MS} ms each after 200 ms warm-up, the order reversed every other round; server CPU of all threads from schedstat. msg/s and CPU: medians of the rounds; ours/bare: median of the per-round ratios)`,
    );
    console.log(
      '| scenario | ours msg/s | bare ws msg/s | tcp pipe msg/s | ours/bare | ours/tcp | ours CPU µs/msg | bare CPU µs/msg | CPU ours/bare | rounds meeting the target: throughput, CPU |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    const scenarios = [
      ['1 KiB, 1 pair', 1, 1_024, 0.85],
      ['16 KiB, 1 pair', 1, 16_384, 0.75],
      ['1 KiB, 1,000 rooms', 1_000, 1_024, 0.85],
      ['16 KiB, 1,000 rooms', 1_000, 16_384, 0.75],
    ] as const;
    const perRound: string[] = [];
    for (const [label, nPairs, size, target] of scenarios) {
      const [ours, bare, tcp] = await throughput(kinds.map(srv), nPairs, size);
      if (!ours || !bare || !tcp) throw new Error('a server is missing');
      const m = (xs: Slice[], f: 'msgPerSec' | 'cpuUsPerMsg') => median(xs.map((x) => x[f]));
      const rate = ours.map((x, r) => x.msgPerSec / (bare[r] as Slice).msgPerSec);
      const cpu = ours.map((x, r) => x.cpuUsPerMsg / (bare[r] as Slice).cpuUsPerMsg);
      const rateTcp = ours.map((x, r) => x.msgPerSec / (tcp[r] as Slice).msgPerSec);
      console.log(
        `| ${label} | ${fmt(m(ours, 'msgPerSec'))} | ${fmt(m(bare, 'msgPerSec'))} | ${fmt(m(tcp, 'msgPerSec'))} | ` +
          `${fmt(100 * median(rate))} % | ${fmt(100 * median(rateTcp))} % | ` +
          `${fmt(m(ours, 'cpuUsPerMsg'), 1)} | ${fmt(m(bare, 'cpuUsPerMsg'), 1)} | ${fmt(median(cpu), 2)}× | ` +
          `${rate.filter((x) => x >= target).length} / ${ROUNDS}, ${cpu.filter((x) => x <= 1.25).length} / ${ROUNDS} |`,
      );
      perRound.push(
        `| ${label} | ${rate.map((x, r) => `${fmt(100 * x)} % ${fmt(cpu[r] as number, 2)}×`).join(' · ')} |`,
      );
    }
    console.log('\nEvery round, ours/bare: throughput and CPU per message');
    console.log('| scenario | rounds in order |');
    console.log('|---|---|');
    for (const line of perRound) console.log(line);
    console.log(
      `\n## Forward latency, 1 KiB over 100 rooms per server at a fixed offered rate (one stream handed to the three servers in turn, ${LATENCY_SLICE_US / 1000} ms each, ${SECONDS} s per server after 0.5 s warm-up; medians of ${LATENCY_ROUNDS} rounds)`,
    );
    console.log(
      '| offered rate | ours p50 µs | ours p99 µs | bare p50 µs | bare p99 µs | tcp p50 µs | tcp p99 µs | p99 ours/tcp (per round) | delivered ours / bare / tcp |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    type Lat = Awaited<ReturnType<typeof latency>>[number];
    for (const rate of [2_000, 10_000]) {
      const rounds: Lat[][] = [];
      for (let r = 0; r < LATENCY_ROUNDS; r++) rounds.push(await latency(kinds.map(srv), rate));
      const at = (k: Kind) => kinds.indexOf(k);
      const med = (k: Kind, f: 'p50' | 'p99') => median(rounds.map((x) => (x[at(k)] as Lat)[f]));
      // Each round's ratio compares two servers measured in the same window.
      const ratios = rounds.map((x) => (x[at('ours')] as Lat).p99 / (x[at('tcp')] as Lat).p99);
      const n = (k: Kind) => rounds.map((x) => (x[at(k)] as Lat).n).join('+');
      console.log(
        `| ${fmt(rate)} msg/s | ${fmt(med('ours', 'p50'))} | ${fmt(med('ours', 'p99'))} | ${fmt(med('bare', 'p50'))} | ${fmt(med('bare', 'p99'))} | ` +
          `${fmt(med('tcp', 'p50'))} | ${fmt(med('tcp', 'p99'))} | ${fmt(median(ratios), 2)}× (${ratios.map((x) => fmt(x, 2)).join(', ')}) | ` +
          `${n('ours')} / ${n('bare')} / ${n('tcp')} of ${LATENCY_ROUNDS} × ${(rounds[0]?.[0] as Lat).expected} |`,
      );
    }
  } finally {
    for (const s of servers.values()) await s.stop();
  }
  console.log(
    `\n## Resident memory per idle joined socket (${fmt(MEMORY_SOCKETS)} sockets in ${fmt(MEMORY_SOCKETS / 2)} rooms, fresh process each)`,
  );
  console.log('| server | KiB per socket | RSS at the end |');
  console.log('|---|---|---|');
  for (const k of ['ours', 'bare'] as const) {
    const m = await memory(k);
    console.log(
      `| ${k === 'ours' ? 'ours' : 'bare ws'} | ${fmt(m.kibPerSocket, 2)} | ${fmt(m.rssKiB / 1024, 1)} MiB |`,
    );
  }
}

// --redis: replicas over Redis against the single process (bench/relay-redis.ts).
if (process.argv.includes('--redis')) await import('./relay-redis.ts');
else await main();
