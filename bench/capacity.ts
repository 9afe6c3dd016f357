// `npm run bench:capacity` (P6): how many sockets one relay process holds, and what that costs,
// against the bare `ws` forwarder of bench:relay in the same run. For N = 5,000, 10,000 and
// 18,000 sockets (N/2 rooms of one machine and one phone; one process may open at most 20,000
// files here): both servers fresh, a generator of several processes on their own loopback source
// addresses (127.0.0.2, .3, …) holds N sockets on each; resident memory per idle joined socket;
// then 1 % of the rooms trade one 1 KiB message a second each way for 60 s — longer than two of
// the relay's 25 s ping cycles, which every generator socket answers — with the forward latency
// of every message, and the sockets each server lost. Both servers are loaded at the same time,
// so the shared machine's noise falls on both. Bounded in count and time; loopback only.
// Options: --sizes 5000,10000,18000  --seconds 60  --generators 4  --active-percent 1
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { GeneratorReply, GeneratorRequest } from './capacity-generator.ts';
import {
  arg,
  built,
  cpuNs,
  fmt,
  launch,
  load,
  machineLine,
  newRoom,
  rssKiB,
  startRelayProcess,
  wait,
  type Proc,
} from './relay-peers.ts';

const list = (name: string, def: number[]) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : (process.argv[i + 1] ?? '').split(',').map(Number);
};
const SIZES = list('sizes', [5_000, 10_000, 18_000]);
const SECONDS = arg('seconds', 60);
const GENERATORS = arg('generators', 4);
const ACTIVE_PERCENT = arg('active-percent', 1);
const MESSAGE_BYTES = 1_024;
const SETTLE_MS = 2_000;
const MAX_SOCKETS = 19_000; // per process: the file limit here is 20,000
const REPLY_LIMIT_MS = (SECONDS + 300) * 1_000;

type Kind = 'ours' | 'bare';
type Gen = {
  child: ChildProcess;
  ask<T extends GeneratorReply['type']>(
    m: GeneratorRequest,
    reply: T,
  ): Promise<Extract<GeneratorReply, { type: T }>>;
};

async function startGenerator(i: number): Promise<Gen> {
  const child = fork(await built('bench/capacity-generator.ts'), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending: Array<(m: GeneratorReply) => boolean> = [];
  child.on('message', (m: GeneratorReply) => {
    const k = pending.findIndex((p) => p(m));
    if (k !== -1) pending.splice(k, 1);
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (c) => reject(new Error(`generator ${i} exited (${c})`))),
  );
  exited.catch(() => undefined);
  return {
    child,
    ask: (m, type) =>
      Promise.race([
        exited,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`generator ${i}: no ${type} reply`)), REPLY_LIMIT_MS),
        ),
        new Promise((resolve) => {
          pending.push((r) => {
            if (r.type !== type || ('server' in r && 'server' in m && r.server !== m.server))
              return false;
            resolve(r);
            return true;
          });
          child.send(m);
        }),
      ]) as never,
  };
}

async function startServer(kind: Kind): Promise<Proc> {
  if (kind === 'ours') return startRelayProcess();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-capacity-'));
  return launch(
    process.execPath,
    [await built('bench/relay-baselines.ts'), 'bare'],
    /listening (\d+)/,
    dir,
  );
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0
    ? NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number);

type Result = {
  kind: Kind;
  sockets: number;
  failed: number;
  kibPerSocket: number;
  rssMiB: number;
  rssEndMiB: number;
  p50Ms: number;
  p99Ms: number;
  sent: number;
  received: number;
  lost: number;
  /** Server CPU while the traffic ran (pings of every socket included), in % of one core. */
  cpuPercent: number;
};

async function atSize(n: number, gens: Gen[]): Promise<Result[]> {
  const kinds: Kind[] = ['ours', 'bare'];
  const servers = new Map<Kind, Proc>();
  for (const k of kinds) servers.set(k, await startServer(k));
  try {
    await wait(1_000);
    const rss0 = new Map(kinds.map((k) => [k, rssKiB(servers.get(k)!.pid)]));
    const roomsOf = new Map<Kind, string[][]>();
    // Both servers get their rooms at once, each generator its share from its own address.
    const opened = await Promise.all(
      kinds.flatMap((k) => {
        const shares = gens.map(() => [] as string[]);
        for (let r = 0; r < n / 2; r++) shares[r % gens.length]!.push(newRoom());
        roomsOf.set(k, shares);
        return gens.map((g, i) =>
          g.ask(
            {
              type: 'open',
              server: k,
              port: servers.get(k)!.port,
              rooms: shares[i]!,
              localAddress: `127.0.0.${i + 2}`,
            },
            'opened',
          ),
        );
      }),
    );
    await wait(SETTLE_MS);
    const rss1 = new Map(kinds.map((k) => [k, rssKiB(servers.get(k)!.pid)]));
    const cpu0 = new Map(kinds.map((k) => [k, cpuNs(servers.get(k)!.pid)]));
    const t0 = performance.now();
    const traffic = await Promise.all(
      kinds.flatMap((k) =>
        gens.map((g, i) => {
          const share = roomsOf.get(k)![i]!;
          const active = share.slice(
            0,
            Math.max(1, Math.round((share.length * ACTIVE_PERCENT) / 100)),
          );
          return g.ask(
            { type: 'traffic', server: k, rooms: active, seconds: SECONDS, size: MESSAGE_BYTES },
            'traffic-done',
          );
        }),
      ),
    );
    const wallMs = performance.now() - t0;
    const cpu1 = new Map(kinds.map((k) => [k, cpuNs(servers.get(k)!.pid)]));
    const status = await Promise.all(gens.map((g) => g.ask({ type: 'status' }, 'status')));
    return kinds.map((k) => {
      const mineOpened = opened.filter((o) => o.server === k);
      const mineTraffic = traffic.filter((t) => t.server === k);
      const lat = mineTraffic.flatMap((t) => t.latenciesUs).sort((a, b) => a - b);
      const sockets = mineOpened.reduce((a, o) => a + o.sockets, 0);
      return {
        kind: k,
        sockets,
        failed: mineOpened.reduce((a, o) => a + o.failed, 0),
        kibPerSocket: (rss1.get(k)! - rss0.get(k)!) / sockets,
        rssMiB: rss1.get(k)! / 1024,
        rssEndMiB: rssKiB(servers.get(k)!.pid) / 1024,
        p50Ms: quantile(lat, 0.5) / 1_000,
        p99Ms: quantile(lat, 0.99) / 1_000,
        sent: mineTraffic.reduce((a, t) => a + t.sent, 0),
        received: mineTraffic.reduce((a, t) => a + t.received, 0),
        lost: status.reduce((a, s) => a + (s.lost[k] ?? 0), 0),
        cpuPercent: ((cpu1.get(k)! - cpu0.get(k)!) / 1e6 / wallMs) * 100,
      };
    });
  } finally {
    for (const s of servers.values()) await s.stop();
  }
}

async function main() {
  if (SIZES.some((n) => n > MAX_SOCKETS || n % 2 !== 0))
    throw new Error(
      `sizes must be even and at most ${MAX_SOCKETS} (one process opens ≤ 20,000 files)`,
    );
  console.log(`bench:capacity ${machineLine()}`);
  console.log(
    `\n${GENERATORS} generator processes (127.0.0.2–.${GENERATORS + 1}); per size both servers fresh, loaded at the same time; ${ACTIVE_PERCENT} % of rooms trade one ${fmt(MESSAGE_BYTES)}-byte message a second each way for ${SECONDS} s (ping interval 25 s, answered).\n`,
  );
  const rows: Result[][] = [];
  for (const n of SIZES) {
    const gens = await Promise.all(Array.from({ length: GENERATORS }, (_, i) => startGenerator(i)));
    try {
      rows.push(await atSize(n, gens));
      console.error(`  ${fmt(n)} sockets done · load ${load()}`);
    } finally {
      await Promise.all(gens.map((g) => g.ask({ type: 'close' }, 'closed').catch(() => undefined)));
      for (const g of gens) g.child.kill();
    }
  }
  console.log(
    '| sockets (rooms) | server | joined (failed) | RSS idle | KiB per socket | RSS after traffic | p50 | p99 | msgs received / sent | sockets lost | CPU during traffic |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows)
    for (const r of row)
      console.log(
        `| ${fmt(r.sockets)} (${fmt(r.sockets / 2)}) | ${r.kind === 'ours' ? 'relay' : 'bare ws'} | ${fmt(r.sockets)} (${r.failed} refused) | ${fmt(r.rssMiB, 1)} MiB | ${fmt(r.kibPerSocket, 2)} | ${fmt(r.rssEndMiB, 1)} MiB | ${fmt(r.p50Ms, 2)} ms | ${fmt(r.p99Ms, 2)} ms | ${fmt(r.received)} / ${fmt(r.sent)} | ${r.lost} | ${fmt(r.cpuPercent, 1)} % |`,
      );
  console.log(
    '\n| sockets | KiB per socket relay/bare | p50 relay/bare | p99 relay/bare | lost relay / bare | CPU relay/bare |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [ours, bare] of rows as [Result, Result][])
    console.log(
      `| ${fmt(ours.sockets)} | ${fmt(ours.kibPerSocket / bare.kibPerSocket, 2)}× | ${fmt(ours.p50Ms / bare.p50Ms, 2)}× | ${fmt(ours.p99Ms / bare.p99Ms, 2)}× | ${ours.lost} / ${bare.lost} | ${fmt(ours.cpuPercent / bare.cpuPercent, 2)}× |`,
    );
  console.log(`\nended ${new Date().toISOString()} · load ${load()}`);
}

await main();
// esbuild's service (the bundles) would keep this process alive after the last table.
process.exit(0);
