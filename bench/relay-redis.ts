// `npm run bench:relay -- --redis` (RS7): the relay as replicas sharing one real
// redis-server, against the single-process relay, in one run, on loopback, with rate limits off
// and the load generator of bench/relay-load.ts. Three variants:
//   single — one relay process, no Redis (the baseline)
//   same   — machine and phone on replica A (A also publishes every frame to Redis)
//   split  — phone on replica A, machine on replica B: every frame crosses Redis pub/sub
// Measures forwarded msg/s and CPU per message (all processes involved: relays and Redis),
// p50/p99 forward latency at a fixed offered rate, and memory per idle joined socket on a
// replica and in Redis. Options: --rounds N (3), --seconds S (2), --sockets N (10000).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { clientFrame, msgText, stampOffset } from './relay-load.ts';
import {
  arg,
  closeAll,
  connectPeer,
  drive,
  fmt,
  freePort,
  launch,
  load,
  M,
  machineLine,
  median,
  MEMORY_SOCKETS,
  newRoom,
  pairs as pairsAt,
  rssKiB,
  SECONDS,
  startRelayProcess,
  wait,
  type Pair,
  type Peer,
  type Proc,
} from './relay-peers.ts';

const ROUNDS = arg('rounds', 3);
const LATENCY_ROUNDS = 3;
const LATENCY_RATE_PER_SEC = 2_000;
const LATENCY_ROOMS = 100;
const REDIS_SERVER = '/usr/bin/redis-server';

async function startRedisServer(): Promise<Proc & { url: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const p = await launch(REDIS_SERVER, ['--dir', dir, ...args], /Ready to accept/, dir, () => port);
  return { ...p, url: `redis://127.0.0.1:${port}` };
}

const relayProcess = (redisUrl: string | null) =>
  startRelayProcess(redisUrl === null ? [] : ['--redis', redisUrl]);

type Variant = 'single' | 'same' | 'split';
const VARIANTS: Variant[] = ['single', 'same', 'split'];
type Setup = { single: Proc; a: Proc; b: Proc; redis: Proc };
/** Where each role connects, and which processes' CPU counts, per variant. */
const placement = (s: Setup, v: Variant) =>
  v === 'single'
    ? { phone: s.single, machine: s.single, procs: [s.single] }
    : v === 'same'
      ? { phone: s.a, machine: s.a, procs: [s.a, s.redis] }
      : { phone: s.a, machine: s.b, procs: [s.a, s.b, s.redis] };

function pairs(s: Setup, v: Variant, n: number, prefix: number): Promise<Pair[]> {
  const at = placement(s, v);
  const ws = (p: Proc) => ({ port: p.port, kind: 'ws' as const });
  return pairsAt(ws(at.phone), ws(at.machine), n, prefix);
}

async function throughput(s: Setup, v: Variant, nPairs: number, size: number) {
  const ps = await pairs(s, v, nPairs, 12);
  return drive(
    ps,
    size,
    placement(s, v).procs.map((p) => p.pid),
  );
}

async function latency(s: Setup, v: Variant, size: number) {
  const ps = await pairs(s, v, LATENCY_ROOMS, stampOffset(newRoom()) + 16);
  const start = process.hrtime.bigint();
  const nowUs = () => Number((process.hrtime.bigint() - start) / 1_000n);
  const samples: number[] = [];
  const warmUs = 500_000;
  const off = stampOffset(ps[0]?.room as string);
  for (const p of ps) {
    p.phone.onFrame = (prefix, len) => {
      if (prefix[9] !== M || len < off + 16) return;
      let stamp = 0;
      for (let i = off; i < off + 16; i++) stamp = stamp * 10 + ((prefix[i] as number) - 48);
      if (stamp >= warmUs) samples.push(nowUs() - stamp);
    };
  }
  const totalUs = warmUs + SECONDS * 1_000_000;
  const rate = LATENCY_RATE_PER_SEC;
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const t = nowUs();
      const due = Math.min(Math.floor((t / 1e6) * rate), Math.floor((totalUs / 1e6) * rate));
      for (; sent < due; sent++) {
        const p = ps[sent % ps.length] as Pair;
        p.machine.socket.write(clientFrame(msgText(p.room, size, nowUs())));
      }
      if (t < totalUs) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await wait(300);
  closeAll(ps);
  await wait(200);
  samples.sort((a, b) => a - b);
  const q = (x: number) =>
    samples[Math.min(samples.length - 1, Math.floor(x * samples.length))] ?? NaN;
  return { p50: q(0.5), p99: q(0.99), n: samples.length, expected: Math.round(SECONDS * rate) };
}

/** RSS growth per idle joined socket on one relay process, and Redis's memory growth per room. */
async function memory(redisUrl: string | null) {
  const relay = await relayProcess(redisUrl);
  const redis = redisUrl === null ? null : new Redis(redisUrl, { lazyConnect: true });
  await redis?.connect();
  const usedBytes = async () =>
    Number(/used_memory:(\d+)/.exec((await redis?.info('memory')) ?? '')?.[1] ?? NaN);
  const join = async (n: number) => {
    const out: Peer[] = [];
    for (let i = 0; i < n; i += 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, n - i) }, async () => {
          const room = newRoom();
          return [
            await connectPeer({ port: relay.port, kind: 'ws' }, room, 'phone', 12),
            await connectPeer({ port: relay.port, kind: 'ws' }, room, 'machine', 12),
          ];
        }),
      );
      out.push(...batch.flat());
    }
    return out;
  };
  try {
    const warm = await join(50);
    await wait(1_000);
    const [r0, m0] = [rssKiB(relay.pid), await usedBytes()];
    const ps = await join(MEMORY_SOCKETS / 2);
    await wait(2_000);
    const [r1, m1] = [rssKiB(relay.pid), await usedBytes()];
    for (const p of [...ps, ...warm]) p.socket.destroy();
    return {
      kibPerSocket: (r1 - r0) / MEMORY_SOCKETS,
      rssKiB: r1,
      redisBytesPerRoom: (m1 - m0) / (MEMORY_SOCKETS / 2),
    };
  } finally {
    redis?.disconnect();
    await relay.stop();
  }
}

async function main() {
  console.log(`bench:relay --redis ${machineLine()}`);
  const redis = await startRedisServer();
  const procs: Proc[] = [redis];
  try {
    const [single, a, b] = await Promise.all([
      relayProcess(null),
      relayProcess(redis.url),
      relayProcess(redis.url),
    ]);
    procs.push(single, a, b);
    const setup: Setup = { single, a, b, redis };
    console.log(
      `\n## Throughput (${ROUNDS} interleaved rounds of ${SECONDS} s; CPU from /proc summed over the relays and redis-server involved; median, then the best round)`,
    );
    console.log(
      '| scenario | single msg/s | same replica msg/s | split msg/s | same/single | split/single | single CPU µs/msg | same CPU µs/msg | split CPU µs/msg | split CPU A (phone) / B (machine) / Redis | generator CPU µs/msg single / split | best: split/single |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    const scenarios = [
      ['1 KiB, 1 pair', 1, 1_024],
      ['16 KiB, 1 pair', 1, 16_384],
      ['1 KiB, 100 rooms', 100, 1_024],
      ['16 KiB, 100 rooms', 100, 16_384],
    ] as const;
    for (const [label, nPairs, size] of scenarios) {
      type Run = {
        msgPerSec: number;
        cpuUsPerMsg: number;
        perProc: number[];
        generatorUsPerMsg: number;
      };
      const runs = new Map<Variant, Run[]>(VARIANTS.map((v) => [v, []]));
      for (let r = 0; r < ROUNDS; r++)
        for (const v of VARIANTS) runs.get(v)?.push(await throughput(setup, v, nPairs, size));
      const m = (v: Variant, f: 'msgPerSec' | 'cpuUsPerMsg' | 'generatorUsPerMsg') =>
        median((runs.get(v) ?? []).map((x) => x[f]));
      const split = [0, 1, 2].map((i) =>
        fmt(median((runs.get('split') ?? []).map((x) => x.perProc[i] as number)), 1),
      );
      const best = (v: Variant) => Math.max(...(runs.get(v) ?? []).map((x) => x.msgPerSec));
      const pct = (v: Variant) => fmt((100 * m(v, 'msgPerSec')) / m('single', 'msgPerSec'));
      console.log(
        `| ${label} | ${fmt(m('single', 'msgPerSec'))} | ${fmt(m('same', 'msgPerSec'))} | ${fmt(m('split', 'msgPerSec'))} | ` +
          `${pct('same')} % | ${pct('split')} % | ${fmt(m('single', 'cpuUsPerMsg'), 1)} | ${fmt(m('same', 'cpuUsPerMsg'), 1)} | ` +
          `${fmt(m('split', 'cpuUsPerMsg'), 1)} | ${split.join(' / ')} | ${fmt(m('single', 'generatorUsPerMsg'), 1)} / ${fmt(m('split', 'generatorUsPerMsg'), 1)} | ${fmt((100 * best('split')) / best('single'))} % |`,
      );
    }
    console.log(
      `\n## Forward latency over ${LATENCY_ROOMS} rooms at ${fmt(LATENCY_RATE_PER_SEC)} msg/s offered (${SECONDS} s after 0.5 s warm-up; per variant the round with the median p99 of ${LATENCY_ROUNDS})`,
    );
    console.log(
      '| size | single p50 µs | single p99 µs | same p50 µs | same p99 µs | split p50 µs | split p99 µs | p99 same/single | p99 split/single | delivered (single/same/split of expected) |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    type Lat = Awaited<ReturnType<typeof latency>>;
    for (const size of [1_024, 16_384]) {
      const l = new Map<Variant, Lat[]>(VARIANTS.map((v) => [v, []]));
      for (let r = 0; r < LATENCY_ROUNDS; r++)
        for (const v of VARIANTS) l.get(v)?.push(await latency(setup, v, size));
      const g = (v: Variant) =>
        [...(l.get(v) ?? [])].sort((x, y) => x.p99 - y.p99)[Math.floor(LATENCY_ROUNDS / 2)] as Lat;
      console.log(
        `| ${size === 1_024 ? '1 KiB' : '16 KiB'} | ${fmt(g('single').p50)} | ${fmt(g('single').p99)} | ${fmt(g('same').p50)} | ` +
          `${fmt(g('same').p99)} | ${fmt(g('split').p50)} | ${fmt(g('split').p99)} | ${fmt(g('same').p99 / g('single').p99, 2)}× | ` +
          `${fmt(g('split').p99 / g('single').p99, 2)}× | ${g('single').n}/${g('same').n}/${g('split').n} of ${g('single').expected} |`,
      );
    }
    for (const p of procs.splice(1)) await p.stop();
    console.log(
      `\n## Resident memory per idle joined socket (${fmt(MEMORY_SOCKETS)} sockets in ${fmt(MEMORY_SOCKETS / 2)} rooms on one relay process, fresh process each)`,
    );
    console.log('| relay | KiB per socket | RSS at the end | Redis bytes per room |');
    console.log('|---|---|---|---|');
    for (const [label, u] of [
      ['single', null],
      ['replica (--redis)', redis.url],
    ] as const) {
      const m = await memory(u);
      const perRoom = Number.isNaN(m.redisBytesPerRoom) ? '—' : fmt(m.redisBytesPerRoom);
      console.log(
        `| ${label} | ${fmt(m.kibPerSocket, 2)} | ${fmt(m.rssKiB / 1024, 1)} MiB | ${perRoom} |`,
      );
    }
  } finally {
    for (const p of procs) await p.stop();
  }
  console.log(`\nload at the end: ${load()}`);
}

await main();
