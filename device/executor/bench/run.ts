// `npm run bench:device` (DE4). In one run, on loopback:
//  1. an execStream of a large output through executor (a real child process) and lane, delivered
//     to a consumer callback, against Node reading the same command's output raw from a pipe —
//     reported as a ratio; BENCH_DEVICE_REPS rounds (default 3) of raw / floor / lane back to
//     back, each round giving its own ratios, and the medians reported;
//  2. the transport floor (transport-floor.ts): the same output as the same chunk frames over a
//     loopback WebSocket with no protocol at all — the most this transport allows here;
//  3. CPU per 64 MiB of each process (lane = this process, executor, raw reader), which the other
//     helpers' load on a shared machine does not change as much as it changes wall time;
//  4. small-instruction round trips (`exists`, `fileInfo`, `exists` 8 folders deep, `exec true`)
//     p50/p99;
//  5. the building blocks: lane stage 1 of a chunk frame (scan vs generic JSON), a chunk frame by
//     concatenation vs JSON.stringify, Ed25519 signing with node:crypto vs tweetnacl.
// Bounded: BENCH_DEVICE_MIB (default 256) of output per stream, BENCH_DEVICE_REPS rounds,
// BENCH_DEVICE_RTT (default 400) round trips.
import { enrolledLane } from './enrolled-lane.ts';
import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { loadavg } from 'node:os';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nacl from 'tweetnacl';
import { WebSocketServer } from 'ws';
import {
  dataChunkFrameWriter,
  encodeDataChunkFrame,
  parseDeviceFrame,
  parseDeviceFrameBytes,
} from '../../wire/index.ts';
import { realTimers } from '../../timers.ts';
import { makeChunker } from '../exec/chunker.ts';
import { openFlow } from '../exec/flow.ts';
import { runExec } from '../exec/run-exec.ts';
import { CHUNK_COALESCE_MS } from '../limits.ts';
import { detectCgroupSupport } from '../proc/cgroup.ts';
import { makeGroupJournal } from '../proc/group-journal.ts';
import { spawnExecutor } from '../test-support/child.ts';

const MIB = 1024 * 1024;
const OUTPUT_MIB = Number(process.env.BENCH_DEVICE_MIB ?? 256);
const RTT_COUNT = Number(process.env.BENCH_DEVICE_RTT ?? 400);
const REPS = Number(process.env.BENCH_DEVICE_REPS ?? 3);
const COMMAND = `head -c ${OUTPUT_MIB * MIB} /dev/zero`;
/** Linux reports /proc/<pid>/stat times in USER_HZ, which is 100 on every Linux ABI. */
const USER_HZ = 100;

type Run = { bytes: number; ms: number };
const mibPerSec = (r: Run) => r.bytes / MIB / (r.ms / 1000);
/** CPU milliseconds spent per 64 MiB of output. */
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** CPU time of one process: all of it, and the part spent in the kernel (syscalls, TCP, pipes). */
type Cpu = { ms: number; sysMs: number };
const cpuOf = (u: NodeJS.CpuUsage): Cpu => ({
  ms: (u.user + u.system) / 1000,
  sysMs: u.system / 1000,
});
const procCpu = (pid: number): Cpu => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  return { ms: ((utime + stime) * 1000) / USER_HZ, sysMs: (stime * 1000) / USER_HZ };
};
/** The median CPU per 64 MiB of output, as "total (kernel k)". */
const per64 = (xs: Cpu[]) => {
  const f = 64 / OUTPUT_MIB;
  const ms = median(xs.map((c) => c.ms)) * f;
  return `${ms.toFixed(0)} (kernel ${(median(xs.map((c) => c.sysMs)) * f).toFixed(0)})`;
};

/** Node reading the command's stdout pipe and counting it: the baseline. */
const rawPipe = (): Promise<Run & { cpu: Cpu }> =>
  new Promise((resolve) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let bytes = 0;
    const child = spawn('/bin/sh', ['-c', COMMAND], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', (d: Buffer) => (bytes += d.length));
    child.stdout.on('close', () =>
      resolve({ bytes, ms: performance.now() - t0, cpu: cpuOf(process.cpuUsage(c0)) }),
    );
  });

const FLOOR_CLIENT = join(dirname(fileURLToPath(import.meta.url)), 'transport-floor.ts');

/** transport-floor.ts in its own process; this side only counts the bytes of the frames. */
type FloorRun = Run & { senderCpu: Cpu; receiverCpu: Cpu };
const transportFloor = async (): Promise<FloorRun> => {
  // Like the lane's server: no UTF-8 check by ws (the lane proves it itself; the floor checks
  // nothing at all, so it stays the floor).
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    perMessageDeflate: false,
    skipUTF8Validation: true,
  });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const { port } = wss.address() as { port: number };
  const client = spawn(
    process.execPath,
    ['--import', 'tsx', FLOOR_CLIENT, `ws://127.0.0.1:${port}`, COMMAND],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    return await new Promise<FloorRun>((resolve, reject) => {
      client.once('exit', (code) => code !== 0 && reject(new Error(`floor client exited ${code}`)));
      wss.once('connection', (ws) => {
        let frameBytes = 0;
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        ws.on('message', (d: Buffer) => (frameBytes += d.length));
        ws.once('close', (_code: number, reason: Buffer) => {
          const ms = performance.now() - t0;
          const receiverCpu = cpuOf(process.cpuUsage(c0));
          // base64 is 4/3 of the raw bytes; anything short of that means output went missing.
          if (frameBytes < ((OUTPUT_MIB * MIB) / 3) * 4)
            reject(new Error(`floor: only ${frameBytes} frame bytes arrived`));
          const sender = JSON.parse(reason.toString()) as NodeJS.CpuUsage;
          resolve({ bytes: OUTPUT_MIB * MIB, ms, senderCpu: cpuOf(sender), receiverCpu });
        });
        ws.send('go');
      });
    });
  } finally {
    wss.close();
  }
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

const microFrames = () => {
  const b64 = Buffer.alloc(64 * 1024, 7).toString('base64');
  const f = {
    gen: '12',
    instructionId: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W',
    streamSeq: 3,
    kind: 'stdout' as const,
    dataB64: b64,
  };
  const N = 2000;
  let t0 = performance.now();
  for (let i = 0; i < N; i += 1) encodeDataChunkFrame({ ...f, streamSeq: i });
  const concatMs = (performance.now() - t0) / N;
  t0 = performance.now();
  for (let i = 0; i < N; i += 1) JSON.stringify({ t: 'chunk', ...f, streamSeq: i });
  const jsonMs = (performance.now() - t0) / N;
  return { concatMs, jsonMs };
};

const microSign = () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const kp = nacl.sign.keyPair();
  const payload = Buffer.alloc(102, 1);
  const N = 200;
  let t0 = performance.now();
  for (let i = 0; i < N; i += 1) sign(null, payload, privateKey);
  const nodeMs = (performance.now() - t0) / N;
  t0 = performance.now();
  for (let i = 0; i < 20; i += 1) nacl.sign.detached(payload, kp.secretKey);
  const naclMs = (performance.now() - t0) / 20;
  return { nodeMs, naclMs };
};

/** The executor's own half: child output → chunker → chunk frame bytes, no socket. */
const executorAlone = async (): Promise<number> => {
  let bytes = 0;
  const frame = Buffer.allocUnsafe(128 * 1024);
  const chunker = makeChunker({
    maxBytesPerStream: Number.MAX_SAFE_INTEGER,
    clock: realTimers,
    coalesceMs: CHUNK_COALESCE_MS,
    emit: (c) => {
      if (c.kind === 'exit') return;
      bytes += c.bytes;
      dataChunkFrameWriter({
        gen: '1',
        instructionId: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W',
        streamSeq: c.seq,
        kind: c.kind,
        dataB64: c.b64,
      }).write(frame, 14);
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-gj-'));
  const cgroupSupport = detectCgroupSupport(); // as the executor does at start
  const t0 = performance.now();
  await runExec({
    command: COMMAND,
    cwd: dir,
    env: process.env,
    timeoutMs: 120_000,
    shell: '/bin/sh',
    killGraceMs: 500,
    clock: realTimers,
    chunker,
    flow: openFlow,
    journal: makeGroupJournal(join(dir, 'g')),
    cgroupBase: cgroupSupport.ok ? cgroupSupport.base : null,
  }).done;
  const ms = performance.now() - t0;
  rmSync(dir, { recursive: true, force: true });
  return bytes / MIB / (ms / 1000);
};

const main = async () => {
  const { tmp, t, workspace, keyDir, deviceId } = await enrolledLane();
  const child = await spawnExecutor(['serve', '--key-dir', keyDir, '--log-level', 'warn']);
  try {
    await t.audited((e) => e.event === 'generation_acked' && e.deviceId === deviceId, 15_000);

    // Warm-up, then the two stream measurements back to back (raw first, then through the lane).
    await t.lane.dispatch(deviceId, {
      kind: 'exec',
      args: { command: 'head -c 1048576 /dev/zero' },
    }).outcome;
    /** The execStream through executor and lane, delivered to a consumer callback. */
    const laneStream = async (): Promise<Run & { laneCpu: Cpu; executorCpu: Cpu }> => {
      const c0 = process.cpuUsage();
      const e0 = procCpu(child.pid);
      const t0 = performance.now();
      const d = t.lane.dispatch(deviceId, {
        kind: 'execStream',
        args: { command: COMMAND },
        timeoutMs: 120_000,
      });
      let bytes = 0;
      d.output.onChunk((i) => {
        if (i.kind === 'stdout') bytes += i.data.length;
      });
      const outcome = await d.outcome;
      const ms = performance.now() - t0;
      if (!outcome.ok || bytes !== OUTPUT_MIB * MIB) {
        throw new Error(`stream did not complete: ${JSON.stringify(outcome)} after ${bytes} bytes`);
      }
      return {
        bytes,
        ms,
        laneCpu: cpuOf(process.cpuUsage(c0)),
        executorCpu: ((e) => ({ ms: e.ms - e0.ms, sysMs: e.sysMs - e0.sysMs }))(procCpu(child.pid)),
      };
    };
    const rounds: {
      raw: Run & { cpu: Cpu };
      floor: FloorRun;
      lane: Awaited<ReturnType<typeof laneStream>>;
    }[] = [];
    for (let r = 0; r < REPS; r += 1) {
      const raw = await rawPipe();
      const floor = await transportFloor();
      const lane = await laneStream();
      rounds.push({ raw, floor, lane });
    }
    const aloneMBs = await executorAlone();
    const rawMBs = median(rounds.map((r) => mibPerSec(r.raw)));
    const floorMBs = median(rounds.map((r) => mibPerSec(r.floor)));
    const laneMBs = median(rounds.map((r) => mibPerSec(r.lane)));
    // Each round's ratios come from measurements taken back to back, so they share most of the
    // machine's load at that moment; the medians of those ratios are the headline figures.
    const pctOf = (a: Run, b: Run) => (mibPerSec(a) / mibPerSec(b)) * 100;
    const laneVsRaw = rounds.map((r) => pctOf(r.lane, r.raw));
    const floorVsRaw = median(rounds.map((r) => pctOf(r.floor, r.raw)));
    const laneVsFloor = median(rounds.map((r) => pctOf(r.lane, r.floor)));
    const cpu = {
      raw: per64(rounds.map((r) => r.raw.cpu)),
      lane: per64(rounds.map((r) => r.lane.laneCpu)),
      executor: per64(rounds.map((r) => r.lane.executorCpu)),
      floorSender: per64(rounds.map((r) => r.floor.senderCpu)),
      floorReceiver: per64(rounds.map((r) => r.floor.receiverCpu)),
    };

    const rtt: Record<'exists' | 'fileInfo' | 'deep' | 'exec', number[]> = {
      exists: [],
      fileInfo: [],
      deep: [],
      exec: [],
    };
    // `deep`: exists on a path 8 folders below the workspace (containment walks each one, H7a).
    const deepPath = join(workspace, 'a/b/c/d/e/f/g/h');
    mkdirSync(deepPath, { recursive: true });
    const timed = async (key: keyof typeof rtt, n: number, go: () => Promise<{ ok: boolean }>) => {
      for (let i = 0; i < n; i += 1) {
        const s = performance.now();
        const o = await go();
        if (!o.ok) throw new Error(`${key} failed: ${JSON.stringify(o)}`);
        rtt[key].push(performance.now() - s);
      }
    };
    for (const kind of ['exists', 'fileInfo'] as const) {
      await timed(
        kind,
        RTT_COUNT,
        () => t.lane.dispatch(deviceId, { kind, args: { path: workspace } }).outcome,
      );
    }
    await timed(
      'deep',
      RTT_COUNT,
      () => t.lane.dispatch(deviceId, { kind: 'exists', args: { path: deepPath } }).outcome,
    );
    // `exec true`: spawn, the H7b wrapper and cgroup where available, the /proc scan at exit.
    await timed('exec', Math.ceil(RTT_COUNT / 4), async () => {
      const h = t.lane.dispatch(deviceId, { kind: 'exec', args: { command: 'true' } });
      for await (const item of h.output) void item;
      return h.outcome;
    });
    // Where the lane spends a chunk: its strict parser (canonical base64 check) vs JSON.parse.
    const sample = encodeDataChunkFrame({
      gen: '1',
      instructionId: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W',
      streamSeq: 0,
      kind: 'stdout',
      dataB64: Buffer.alloc(65536).toString('base64'),
    });
    const sampleBytes = Buffer.from(sample, 'utf8');
    let p0 = performance.now();
    for (let i = 0; i < 200; i += 1) parseDeviceFrameBytes(sampleBytes);
    const scanMs = (performance.now() - p0) / 200;
    p0 = performance.now();
    for (let i = 0; i < 200; i += 1) parseDeviceFrame(sampleBytes.toString('utf8'));
    const parseMs = (performance.now() - p0) / 200;
    const frames = microFrames();
    const signing = microSign();

    const date = new Date().toISOString().slice(0, 10);
    const lines = [
      `device executor benchmark, ${date}, node ${process.version}, ${OUTPUT_MIB} MiB output, ${REPS} rounds (medians), ${RTT_COUNT} round trips per kind, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
      `| measurement | value |`,
      `|---|---|`,
      `| raw pipe read (\`${COMMAND}\`) | ${rawMBs.toFixed(0)} MiB/s |`,
      `| transport floor: same output, same 64 KiB base64 chunk frames, loopback WebSocket, no protocol | ${floorMBs.toFixed(0)} MiB/s (${floorVsRaw.toFixed(0)} % of raw) |`,
      `| execStream through executor → lane → consumer callback | ${laneMBs.toFixed(0)} MiB/s (${laneVsFloor.toFixed(0)} % of the floor) |`,
      `| ratio executor+lane / raw pipe (target ≥ 50 %): median of the rounds (each round) | **${median(laneVsRaw).toFixed(0)} %** (${laneVsRaw.map((x) => `${x.toFixed(0)} %`).join(', ')}) |`,
      `| CPU per 64 MiB, raw pipe: the reader | ${cpu.raw} ms |`,
      `| CPU per 64 MiB, transport floor: sender / receiver | ${cpu.floorSender} / ${cpu.floorReceiver} ms |`,
      `| CPU per 64 MiB, execStream: executor / lane (incl. the consumer) | ${cpu.executor} / ${cpu.lane} ms |`,
      `| executor's half alone (child output → 64 KiB chunks → frame bytes, no socket) | ${aloneMBs.toFixed(0)} MiB/s (${((aloneMBs / rawMBs) * 100).toFixed(0)} % of raw) |`,
      `| \`exists\` round trip p50 / p99 (target p99 ≤ 5 ms) | ${pct(rtt.exists, 50).toFixed(2)} / ${pct(rtt.exists, 99).toFixed(2)} ms |`,
      `| \`fileInfo\` round trip p50 / p99 | ${pct(rtt.fileInfo, 50).toFixed(2)} / ${pct(rtt.fileInfo, 99).toFixed(2)} ms |`,
      `| \`exists\` 8 folders deep, p50 / p99 | ${pct(rtt.deep, 50).toFixed(2)} / ${pct(rtt.deep, 99).toFixed(2)} ms |`,
      `| \`exec true\` round trip p50 / p99 (${rtt.exec.length}) | ${pct(rtt.exec, 50).toFixed(2)} / ${pct(rtt.exec, 99).toFixed(2)} ms |`,
      `| lane stage 1 of one 64 KiB chunk frame: byte scan vs generic (UTF-8 decode + JSON.parse + checks) | ${scanMs.toFixed(3)} ms vs ${parseMs.toFixed(3)} ms |`,
      `| chunk frame (64 KiB raw): concatenation vs JSON.stringify | ${(frames.concatMs * 1000).toFixed(1)} µs vs ${(frames.jsonMs * 1000).toFixed(1)} µs (${(frames.jsonMs / frames.concatMs).toFixed(1)}×) |`,
      `| Ed25519 sign (102-byte hello payload): node:crypto vs tweetnacl | ${signing.nodeMs.toFixed(3)} ms vs ${signing.naclMs.toFixed(2)} ms |`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    child.child.kill('SIGTERM');
    await child.exited;
    await t.stop();
    tmp.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  }
};

await main();
