// `npm run bench:capacity` (P6): how many sockets one relay process holds, and what that costs,
// against the bare `ws` forwarder of bench:relay in the same run. For N = 5,000, 10,000 and
// 18,000 sockets (N/2 rooms of one machine and one phone; one process may open at most 20,000
// files here): both servers fresh, a generator of several processes holds N sockets on each;
// resident memory per idle joined socket;
// then 1 % of the rooms trade one 1 KiB message a second each way for 60 s — longer than two of
// the relay's 25 s ping cycles, which every generator socket answers — with the forward latency
// of every message, with the seconds in which a ping sweep ran (P10) told apart, and the sockets
// each server lost; why any join failed, in the server's words. Both servers are loaded at the
// same time, so the shared machine's noise falls on both. Bounded in count and time; loopback only.
// Options: --sizes 5000,10000,18000  --seconds 60  --generators 4  --active-percent 1
//          --servers ours,bare — which servers, at the same time: ours (the relay), bare (the bare
//          forwarder), ours-sweep (the relay with --ping-slices 1: every socket pinged in one turn,
//          as before P10)
//          --nice 0 — the scheduling priority of the generators and servers
//          --source-addresses — bind each generator's sockets to its own 127.0.0.x (before 2026-12-07)
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
const KINDS = ['ours', 'ours-sweep', 'bare'] as const;
type Kind = (typeof KINDS)[number];
const LABEL: Record<Kind, string> = {
  ours: 'relay',
  'ours-sweep': 'relay, 1 slice',
  bare: 'bare ws',
};
/** A second of traffic is "in a sweep" when this share of the server's sockets got a ping in it. */
const SWEEP_SHARE = 0.1;
const SERVERS = (() => {
  const i = process.argv.indexOf('--servers');
  const names = i === -1 ? ['ours', 'bare'] : (process.argv[i + 1] ?? '').split(',');
  if (names.length === 0 || names.some((k) => !KINDS.includes(k as Kind)))
    throw new Error(`--servers takes a list of ${KINDS.join(', ')}`);
  return names as Kind[];
})();
const SECONDS = arg('seconds', 60);
const GENERATORS = arg('generators', 4);
const ACTIVE_PERCENT = arg('active-percent', 1);
// --nice N runs the generators and both servers at that nice value (below 0 needs CAP_SYS_NICE):
// more CPU share than other work on a shared machine, the same for both servers. Default 0.
const NICE = arg('nice', 0);
// The generators connect from 127.0.0.1 and let connect() pick each socket's port. With
// --source-addresses each binds its sockets to its own address (127.0.0.2, .3, …) first, as it
// did until 2026-12-07: a bind to port 0 then cost the generator 2.5–3 ms of CPU per socket at
// 9,000 bound sockets per process (--cpu-prof: 25–29 s of 95 s in net's internalConnect), which
// stalled it for 6–10 s with 100 connects in a batch — the stall behind the refused joins.
// One source address is enough: each server has its own port, and 18,000 is below the 28,232
// ephemeral ports per destination.
const SOURCE_ADDRESSES = process.argv.includes('--source-addresses');
const prioritise = (pid: number | undefined, what: string) => {
  if (pid === undefined || NICE === 0) return;
  try {
    os.setPriority(pid, NICE);
  } catch (e) {
    console.error(`  cannot renice ${what} to ${NICE}: ${(e as Error).message}`);
  }
};
const MESSAGE_BYTES = 1_024;
const SETTLE_MS = 2_000;
const MAX_SOCKETS = 19_000; // per process: the file limit here is 20,000
const REPLY_LIMIT_MS = (SECONDS + 300) * 1_000;

type Gen = {
  child: ChildProcess;
  ask<T extends GeneratorReply['type']>(
    m: GeneratorRequest,
    reply: T,
  ): Promise<Extract<GeneratorReply, { type: T }>>;
};

async function startGenerator(i: number): Promise<Gen> {
  // GEN_PROF_DIR=/some/dir: a CPU profile of each generator (where its time went while opening).
  const prof = process.env.GEN_PROF_DIR;
  const child = fork(await built('bench/capacity-generator.ts'), [], {
    execArgv: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  prioritise(child.pid, `generator ${i}`);
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
  // --metrics: the relay's own view (event-loop delay, deadline hits), read after each phase.
  if (kind === 'ours') return startRelayProcess(['--metrics']);
  if (kind === 'ours-sweep') return startRelayProcess(['--metrics', '--ping-slices', '1']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-capacity-'));
  return launch(
    process.execPath,
    [await built('bench/relay-baselines.ts'), 'bare'],
    /listening (\d+)/,
    dir,
  );
}

/** The relay's /metrics (bare has none): the event loop's longest delay since the last read
 * (prom-client resets it on every read) and the hello deadlines hit so far. */
async function relayView(
  p: Proc,
): Promise<{ loopMaxMs: number; helloDeadlines: number; handshakesCap: number } | null> {
  const text = await fetch(`http://127.0.0.1:${p.port}/metrics`).then(
    (r) => (r.ok ? r.text() : ''),
    () => '',
  );
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  if (text === '') return null;
  return {
    loopMaxMs: num(/^nodejs_eventloop_lag_max_seconds ([\d.e+-]+)$/m) * 1_000,
    helloDeadlines: num(/^dsh_relay_limit_hits_total\{limit="hello-deadline"\} (\d+)$/m),
    handshakesCap: num(/^dsh_relay_limit_hits_total\{limit="handshakes"\} (\d+)$/m),
  };
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0
    ? NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number);

type Result = {
  kind: Kind;
  sockets: number;
  failed: number;
  reasons: Record<string, number>;
  /** Failed joins per second since the server started (its ping sweeps run every 25 s from then). */
  failedBySecond: Map<number, number>;
  generatorLoopMaxMs: number[];
  kibPerSocket: number;
  rssMiB: number;
  rssEndMiB: number;
  p50Ms: number;
  p99Ms: number;
  /** p99 of messages sent in seconds with a ping sweep (≥ SWEEP_SHARE of sockets pinged), and
   * in the others; how many messages each; the most sockets pinged in one second (share). */
  sweepP99Ms: number;
  sweepMsgs: number;
  quietP99Ms: number;
  quietMsgs: number;
  maxPingShare: number;
  /** From the relay's /metrics: event-loop delay max (ms) while opening and during the traffic;
   * hello deadlines hit. */
  loopMaxOpenMs: number;
  loopMaxTrafficMs: number;
  helloDeadlines: number;
  /** Sockets closed at accept because --max-handshakes were still sending headers (P8). */
  handshakesCap: number;
  sent: number;
  received: number;
  lost: number;
  /** Server CPU while the traffic ran (pings of every socket included), in % of one core. */
  cpuPercent: number;
};

async function atSize(n: number, gens: Gen[]): Promise<Result[]> {
  const kinds: Kind[] = SERVERS;
  const servers = new Map<Kind, Proc>();
  const startedAt = new Map<Kind, number>();
  for (const k of kinds) {
    servers.set(k, await startServer(k));
    prioritise(servers.get(k)?.pid, k);
    startedAt.set(k, Date.now());
  }
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
              ...(SOURCE_ADDRESSES ? { localAddress: `127.0.0.${i + 2}` } : {}),
            },
            'opened',
          ),
        );
      }),
    );
    await wait(SETTLE_MS);
    const opening = new Map(
      await Promise.all(kinds.map(async (k) => [k, await relayView(servers.get(k)!)] as const)),
    );
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
    const during = new Map(
      await Promise.all(kinds.map(async (k) => [k, await relayView(servers.get(k)!)] as const)),
    );
    const cpu1 = new Map(kinds.map((k) => [k, cpuNs(servers.get(k)!.pid)]));
    const status = await Promise.all(gens.map((g) => g.ask({ type: 'status' }, 'status')));
    return kinds.map((k) => {
      const mineOpened = opened.filter((o) => o.server === k);
      const mineTraffic = traffic.filter((t) => t.server === k);
      const lat = mineTraffic.flatMap((t) => t.latenciesUs).sort((a, b) => a - b);
      const sockets = mineOpened.reduce((a, o) => a + o.sockets, 0);
      const pingsPerSecond = new Map<number, number>();
      for (const t of mineTraffic)
        for (const p of t.pingsUs) {
          const sec = Math.floor(p / 1e6);
          pingsPerSecond.set(sec, (pingsPerSecond.get(sec) ?? 0) + 1);
        }
      const inSweep = (sentUs: number) =>
        (pingsPerSecond.get(Math.floor(sentUs / 1e6)) ?? 0) >= SWEEP_SHARE * sockets;
      const sweep: number[] = [];
      const quiet: number[] = [];
      for (const t of mineTraffic)
        t.latenciesUs.forEach((l, i) => (inSweep(t.sentUs[i] as number) ? sweep : quiet).push(l));
      sweep.sort((a, b) => a - b);
      quiet.sort((a, b) => a - b);
      return {
        kind: k,
        sockets,
        failed: mineOpened.reduce((a, o) => a + o.failed, 0),
        reasons: mineOpened.reduce<Record<string, number>>((a, o) => {
          for (const [why, c] of Object.entries(o.reasons)) a[why] = (a[why] ?? 0) + c;
          return a;
        }, {}),
        generatorLoopMaxMs: mineOpened.map((o) => o.loopMaxMs),
        failedBySecond: mineOpened
          .flatMap((o) => o.failedAtMs)
          .reduce((a, t) => {
            const sec = Math.floor((t - startedAt.get(k)!) / 1_000);
            return a.set(sec, (a.get(sec) ?? 0) + 1);
          }, new Map<number, number>()),
        kibPerSocket: (rss1.get(k)! - rss0.get(k)!) / sockets,
        rssMiB: rss1.get(k)! / 1024,
        rssEndMiB: rssKiB(servers.get(k)!.pid) / 1024,
        p50Ms: quantile(lat, 0.5) / 1_000,
        p99Ms: quantile(lat, 0.99) / 1_000,
        sweepP99Ms: quantile(sweep, 0.99) / 1_000,
        sweepMsgs: sweep.length,
        quietP99Ms: quantile(quiet, 0.99) / 1_000,
        quietMsgs: quiet.length,
        maxPingShare: Math.max(0, ...pingsPerSecond.values()) / sockets,
        loopMaxOpenMs: opening.get(k)?.loopMaxMs ?? NaN,
        loopMaxTrafficMs: during.get(k)?.loopMaxMs ?? NaN,
        helloDeadlines: during.get(k)?.helloDeadlines ?? NaN,
        handshakesCap: during.get(k)?.handshakesCap ?? NaN,
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
    `\n${GENERATORS} generator processes (${SOURCE_ADDRESSES ? `bound to 127.0.0.2–.${GENERATORS + 1}` : 'from 127.0.0.1'}), nice ${NICE}; per size both servers fresh, loaded at the same time; ${ACTIVE_PERCENT} % of rooms trade one ${fmt(MESSAGE_BYTES)}-byte message a second each way for ${SECONDS} s (ping interval 25 s, answered).\n`,
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
        `| ${fmt(r.sockets)} (${fmt(r.sockets / 2)}) | ${LABEL[r.kind]} | ${fmt(r.sockets)} (${r.failed} refused) | ${fmt(r.rssMiB, 1)} MiB | ${fmt(r.kibPerSocket, 2)} | ${fmt(r.rssEndMiB, 1)} MiB | ${fmt(r.p50Ms, 2)} ms | ${fmt(r.p99Ms, 2)} ms | ${fmt(r.received)} / ${fmt(r.sent)} | ${r.lost} | ${fmt(r.cpuPercent, 1)} % |`,
      );
  for (const row of rows)
    for (const r of row)
      for (const [why, c] of Object.entries(r.reasons))
        console.log(`${r.kind} at ${fmt(r.sockets)}: ${c} joins failed: ${why}`);
  for (const row of rows)
    for (const r of row)
      console.log(
        `${r.kind}: generators' longest event-loop delay while opening: ${r.generatorLoopMaxMs.map((m) => fmt(m)).join(', ')} ms`,
      );
  for (const row of rows)
    for (const r of row)
      if (r.failedBySecond.size > 0)
        console.log(
          `${r.kind}: failed joins by second since it started (s:count): ${[...r.failedBySecond]
            .sort((a, b) => a[0] - b[0])
            .map(([s, c]) => `${s}:${c}`)
            .join(' ')}`,
        );
  console.log(
    '\n| sockets | server | most sockets pinged in one second | p99 in seconds with a sweep (msgs) | p99 in the other seconds (msgs) | event-loop delay max: opening / traffic | hello deadlines hit | closed at accept (handshakes cap) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows)
    for (const r of row)
      console.log(
        `| ${fmt(r.sockets)} | ${LABEL[r.kind]} | ${fmt(r.maxPingShare * 100, 1)} % | ${r.sweepMsgs ? `${fmt(r.sweepP99Ms, 2)} ms` : '—'} (${fmt(r.sweepMsgs)}) | ${fmt(r.quietP99Ms, 2)} ms (${fmt(r.quietMsgs)}) | ${r.kind === 'bare' ? '—' : `${fmt(r.loopMaxOpenMs, 0)} / ${fmt(r.loopMaxTrafficMs, 0)} ms`} | ${r.kind === 'bare' ? '—' : r.helloDeadlines} | ${r.kind === 'bare' ? '—' : r.handshakesCap} |`,
      );
  if (!SERVERS.includes('ours') || !SERVERS.includes('bare'))
    return console.log(`\nended ${new Date().toISOString()} · load ${load()}`);
  console.log(
    '\n| sockets | KiB per socket relay/bare | p50 relay/bare | p99 relay/bare | lost relay / bare | CPU relay/bare |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    const ours = row.find((r) => r.kind === 'ours') as Result;
    const bare = row.find((r) => r.kind === 'bare') as Result;
    console.log(
      `| ${fmt(ours.sockets)} | ${fmt(ours.kibPerSocket / bare.kibPerSocket, 2)}× | ${fmt(ours.p50Ms / bare.p50Ms, 2)}× | ${fmt(ours.p99Ms / bare.p99Ms, 2)}× | ${ours.lost} / ${bare.lost} | ${fmt(ours.cpuPercent / bare.cpuPercent, 2)}× |`,
    );
  }
  console.log(`\nended ${new Date().toISOString()} · load ${load()}`);
}

await main();
// esbuild's service (the bundles) would keep this process alive after the last table.
process.exit(0);
