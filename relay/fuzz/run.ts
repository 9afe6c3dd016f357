// H11: the relay fuzz at scale. `npm run fuzz:relay -- --frames 100000` (not part of npm test).
// Starts the relay as its own process (relay-child.ts, loopback only), warms it up, then sends
// --frames hostile frames (frames.ts) from many sockets — a share of them each as the first frame
// of a fresh socket, the rest after hello from --sockets concurrent sockets — while --legit-rooms
// pairs exchange numbered messages. Checks: the relay never exits, every reply and close is the
// oracle's, the legitimate messages all arrive in order, and after every socket is gone its
// memory is back to the warmed-up baseline. Bounded by --frames and --time-limit-s; exits 1 on
// any failure and prints a summary (docs/relay.md records runs).
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import url from 'node:url';
import { connectClient, type TestClient } from '../test-support/ws-client.ts';
import { postHelloSocket, preHelloFrame } from './drive.ts';
import { prng } from './frames.ts';
import type { ChildMemory } from './relay-child.ts';

type Options = {
  frames: number;
  sockets: number;
  preHelloShare: number;
  legitRooms: number;
  warmupFrames: number;
  legitPauseMs: number;
  seed: number;
  timeLimitS: number;
};
const DEFAULTS: Options = {
  frames: 100_000,
  sockets: 64,
  preHelloShare: 0.1,
  legitRooms: 8,
  warmupFrames: 5_000,
  legitPauseMs: 200,
  seed: 20261201,
  timeLimitS: 900,
};
/** "Back to baseline": after a full GC with every socket closed, the heap holds at most this
 * much more than after the warm-up (a leak of 10 bytes per frame would be ~1 MB), and the
 * resident set at most RSS_SLACK more (V8 and malloc keep some freed pages mapped). */
const HEAP_SLACK_BYTES = 1_048_576;
const RSS_SLACK = 0.1;
const PRE_HELLO_AT_ONCE = 32;
const LEGIT_WAVE = 20;

function parseArgs(argv: string[]): Options {
  const o = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i] as string);
    const key = m?.[1]?.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as keyof Options;
    if (!m || !(key in o)) throw new Error(`unknown argument ${argv[i]} (see relay/fuzz/run.ts)`);
    const v = Number(m[2] ?? argv[++i]);
    if (!Number.isFinite(v) || v < 0) throw new Error(`--${m[1]} needs a number`);
    o[key] = v;
  }
  return o;
}

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');
const MiB = (n: number) => `${(n / 1_048_576).toFixed(1)} MiB`;
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

function startChild(dataDir: string) {
  const child = fork(path.join(root, 'relay/fuzz/relay-child.ts'), [dataDir], {
    cwd: root,
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let errors = 0;
  let stderrTail = '';
  child.stderr?.on('data', (d: Buffer) => {
    const text = d.toString();
    stderrTail = (stderrTail + text).slice(-4_000);
    for (const line of text.split('\n')) if (/"level":(50|60)/.test(line)) errors++;
  });
  let exit: string | null = null;
  const exited = new Promise<number | null>((r) =>
    child.once('exit', (code, signal) => {
      exit = `exit ${code} ${signal ?? ''}`.trim();
      r(code);
    }),
  );
  const next = <T>(pick: (m: Record<string, unknown>) => T | undefined) =>
    new Promise<T>((resolve, reject) => {
      const on = (m: Record<string, unknown>) => {
        const v = pick(m);
        if (v === undefined) return;
        child.off('message', on);
        resolve(v);
      };
      child.on('message', on);
      void exited.then(() => reject(new Error(`relay process ended (${exit}): ${stderrTail}`)));
    });
  return {
    child,
    exited,
    exit: () => exit,
    errors: () => errors,
    stderrTail: () => stderrTail,
    url: next((m) => m.url as string | undefined),
    async memory(): Promise<ChildMemory> {
      const m = next((x) => x.memory as ChildMemory | undefined);
      child.send('memory');
      return m;
    },
  };
}

/** Pairs exchanging numbered messages in waves (a pause between waves, so the legitimate rooms
 * do not take the CPU the hostile frames need) until `stop()`; counts what arrived in order. */
async function legitimate(wsUrl: string, rooms: number, pauseMs: number, stop: () => boolean) {
  let delivered = 0;
  const problems: string[] = [];
  const clients: TestClient[] = [];
  await Promise.all(
    Array.from({ length: rooms }, async (_, k) => {
      const room = `legit-${k}-${crypto.randomBytes(6).toString('hex')}`;
      const m = await connectClient(wsUrl);
      const p = await connectClient(wsUrl);
      clients.push(m, p);
      await m.hello(room, 'machine');
      await p.hello(room, 'phone');
      await m.nextFrame('presence');
      for (let n = 0; !stop(); n += LEGIT_WAVE) {
        for (let i = n; i < n + LEGIT_WAVE; i++) {
          m.send({ kind: 'msg', room, payload: Buffer.from(`m${i}`).toString('base64') });
          p.send({ kind: 'msg', room, payload: Buffer.from(`p${i}`).toString('base64') });
        }
        for (const [c, prefix] of [
          [p, 'm'],
          [m, 'p'],
        ] as const)
          for (let i = n; i < n + LEGIT_WAVE; i++) {
            const f = await c.nextFrame('msg').catch((e: Error) => ({ payload: e.message }));
            const got = Buffer.from(String(f.payload), 'base64').toString();
            if (got === `${prefix}${i}`) delivered++;
            else if (problems.length < 20) problems.push(`${room}: got ${got}, want ${prefix}${i}`);
          }
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
  return { delivered, problems };
}

/** `frames` hostile frames: a share as first frames of fresh sockets, the rest after hello. */
async function hostileFrames(
  wsUrl: string,
  frames: number,
  o: Options,
  seed: number,
  deadline: number,
) {
  const expected = new Map<string, number>();
  const mismatches: string[] = [];
  const pre = Math.round(frames * o.preHelloShare);
  const post = frames - pre;
  const perSocket = Math.ceil(post / o.sockets);
  const r = prng(seed);
  let sent = 0;
  const preHello = (async () => {
    for (let i = 0; i < pre && Date.now() < deadline; i += PRE_HELLO_AT_ONCE) {
      const n = Math.min(PRE_HELLO_AT_ONCE, pre - i);
      const got = await Promise.all(
        Array.from({ length: n }, () => preHelloFrame(wsUrl, r, expected)),
      );
      sent += n;
      for (const m of got) if (m !== null) mismatches.push(m);
    }
  })();
  const driven = await Promise.all(
    Array.from({ length: o.sockets }, (_, s) => {
      const mine = Math.max(0, Math.min(perSocket, post - s * perSocket));
      return postHelloSocket(wsUrl, s, seed, mine, deadline);
    }),
  );
  await preHello;
  for (const d of driven) {
    sent += d.frames;
    mismatches.push(...d.mismatches);
    for (const [k, n] of d.expected) expected.set(k, (expected.get(k) ?? 0) + n);
  }
  return { sent, expected, mismatches };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const deadline = started + o.timeLimitS * 1_000;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-fuzz-'));
  const relay = startChild(dataDir);
  const failures: string[] = [];
  const log = (s: string) => process.stdout.write(`${s}\n`);
  try {
    const wsUrl = await relay.url;
    log(
      `fuzz:relay ${new Date().toISOString()} load ${load()} ${JSON.stringify(o)} relay ${wsUrl}`,
    );
    // Warm-up: the same mix with the same sockets and rooms, so the baseline is a relay that has
    // run every code path and held its peak number of sockets once.
    const round = async (frames: number, seed: number) => {
      let done = false;
      const legit = legitimate(
        wsUrl,
        o.legitRooms,
        o.legitPauseMs,
        () => done || Date.now() > deadline,
      );
      const t0 = Date.now();
      const h = await hostileFrames(wsUrl, frames, o, seed, deadline);
      const seconds = (Date.now() - t0) / 1_000;
      done = true;
      return { h, l: await legit, seconds };
    };
    const warm = await round(o.warmupFrames, o.seed + 7_777);
    failures.push(...warm.h.mismatches.slice(0, 5), ...warm.l.problems.slice(0, 5));
    let baseline = await relay.memory();
    for (let i = 0; i < 50 && baseline.connections > 0; i++) baseline = await relay.memory();
    log(
      `baseline after ${warm.h.sent} warm-up frames: rss ${MiB(baseline.rss)}, heap ${MiB(baseline.heapUsed)}`,
    );

    const peak = { rss: baseline.rss };
    const sampler = setInterval(() => {
      void relay.memory().then(
        (m) => {
          peak.rss = Math.max(peak.rss, m.rss);
          log(
            `  ${((Date.now() - started) / 1_000).toFixed(0)} s: rss ${MiB(m.rss)}, heap ${MiB(m.heapUsed)}, ${m.connections} sockets`,
          );
        },
        () => undefined,
      );
    }, 10_000);
    const { h, l, seconds } = await round(o.frames, o.seed);
    clearInterval(sampler);

    // Every socket is gone: the relay must hold what it held after the warm-up.
    let after = await relay.memory();
    for (let i = 0; i < 50 && after.connections > 0; i++) after = await relay.memory();
    const heapGrowth = after.heapUsed - baseline.heapUsed;
    const rssGrowth = (after.rss - baseline.rss) / baseline.rss;

    log(
      `hostile frames: ${h.sent} in ${seconds.toFixed(1)} s (${Math.round(h.sent / seconds)}/s), load ${load()}`,
    );
    log(
      `  expected replies and closes: ${JSON.stringify(Object.fromEntries([...h.expected].sort()))}`,
    );
    log(`  mismatches: ${h.mismatches.length}`);
    for (const m of h.mismatches.slice(0, 20)) log(`    ${m}`);
    log(
      `legitimate messages delivered in order: ${l.delivered} (${o.legitRooms} rooms), problems: ${l.problems.length}`,
    );
    log(
      `memory: baseline rss ${MiB(baseline.rss)} heap ${MiB(baseline.heapUsed)}; peak rss ${MiB(peak.rss)}; after rss ${MiB(after.rss)} (${(rssGrowth * 100).toFixed(1)} %) heap ${MiB(after.heapUsed)} (${heapGrowth >= 0 ? '+' : ''}${(heapGrowth / 1024).toFixed(0)} KiB), ${after.connections} sockets`,
    );
    log(`relay error/fatal log lines: ${relay.errors()}; still running: ${relay.exit() === null}`);

    if (h.sent < o.frames)
      failures.push(`only ${h.sent} of ${o.frames} frames within the time limit`);
    failures.push(...h.mismatches.slice(0, 20), ...l.problems);
    if (l.delivered === 0) failures.push('no legitimate message was delivered');
    if (heapGrowth > HEAP_SLACK_BYTES) failures.push(`heap grew by ${MiB(heapGrowth)}`);
    if (rssGrowth > RSS_SLACK) failures.push(`rss grew by ${(rssGrowth * 100).toFixed(1)} %`);
    if (after.connections !== 0) failures.push(`${after.connections} sockets still open`);
    if (relay.errors() > 0)
      failures.push(`${relay.errors()} error log lines: ${relay.stderrTail()}`);
    if (relay.exit() !== null) failures.push(`the relay process ended: ${relay.exit()}`);
    relay.child.send('stop');
    const code = await relay.exited;
    if (code !== 0) failures.push(`the relay exited ${code} on stop`);
  } catch (e) {
    failures.push((e as Error).message);
  } finally {
    if (relay.exit() === null) relay.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  log(
    failures.length === 0 ? 'fuzz:relay PASSED' : `fuzz:relay FAILED:\n  ${failures.join('\n  ')}`,
  );
  process.exit(failures.length === 0 ? 0 : 1);
}

void main();
