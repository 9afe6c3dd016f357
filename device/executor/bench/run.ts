// `npm run bench:device` (issue 6 §4). In one run, on loopback:
//  1. an execStream of a large output through executor (a real child process) and lane, against
//     Node reading the same command's output raw from a pipe — reported as a ratio;
//  2. small-instruction round trips (`exists`, `fileInfo`) p50/p99;
//  3. the building blocks: a chunk frame by concatenation vs JSON.stringify, Ed25519 signing
//     with node:crypto vs tweetnacl.
// Bounded: BENCH_DEVICE_MIB (default 256) of output, BENCH_DEVICE_RTT (default 400) round trips.
import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { loadavg } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { ALICE, startTestLane } from '../../test-support/lane-fixture.ts';
import { encodeDataChunkFrame, parseDeviceFrame } from '../../wire/index.ts';
import { enrollDevice } from '../enroll.ts';
import { realClock } from '../clock.ts';
import { makeChunker } from '../exec/chunker.ts';
import { openFlow } from '../exec/flow.ts';
import { runExec } from '../exec/run-exec.ts';
import { CHUNK_COALESCE_MS } from '../limits.ts';
import { makeGroupJournal } from '../proc/group-journal.ts';
import { spawnExecutor } from '../test-support/child.ts';
import { makeTmpDirs } from '../test-support/tmp.ts';

const MIB = 1024 * 1024;
const OUTPUT_MIB = Number(process.env.BENCH_DEVICE_MIB ?? 256);
const RTT_COUNT = Number(process.env.BENCH_DEVICE_RTT ?? 400);
const COMMAND = `head -c ${OUTPUT_MIB * MIB} /dev/zero`;

const rawPipe = (): Promise<{ bytes: number; ms: number }> =>
  new Promise((resolve) => {
    const t0 = performance.now();
    let bytes = 0;
    const child = spawn('/bin/sh', ['-c', COMMAND], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', (d: Buffer) => (bytes += d.length));
    child.stdout.on('close', () => resolve({ bytes, ms: performance.now() - t0 }));
  });

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

/** The executor's own half: child output → chunker → chunk frame text, no socket. */
const executorAlone = async (): Promise<number> => {
  let bytes = 0;
  const chunker = makeChunker({
    maxBytesPerStream: Number.MAX_SAFE_INTEGER,
    clock: realClock,
    coalesceMs: CHUNK_COALESCE_MS,
    emit: (c) => {
      if (c.kind === 'exit') return;
      bytes += c.bytes;
      encodeDataChunkFrame({
        gen: '1',
        instructionId: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W',
        streamSeq: c.seq,
        kind: c.kind,
        dataB64: c.b64,
      });
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-gj-'));
  const t0 = performance.now();
  await runExec({
    command: COMMAND,
    cwd: dir,
    env: process.env,
    timeoutMs: 120_000,
    shell: '/bin/sh',
    killGraceMs: 500,
    clock: realClock,
    chunker,
    flow: openFlow,
    journal: makeGroupJournal(join(dir, 'g')),
  }).done;
  const ms = performance.now() - t0;
  rmSync(dir, { recursive: true, force: true });
  return bytes / MIB / (ms / 1000);
};

const main = async () => {
  const tmp = makeTmpDirs();
  const t = await startTestLane({ defaultTimeoutMs: 120_000 });
  const workspace = tmp.make('dsh-bench-ws-');
  const keyDir = join(tmp.make('dsh-bench-keys-'), 'keys');
  const { token } = t.lane.issueEnrollmentToken('alice');
  const enrolled = await enrollDevice({
    server: t.lane.url,
    token,
    userToken: ALICE,
    workspaceRoot: workspace,
    keyDir,
  });
  if (!enrolled.ok) throw new Error(enrolled.message);
  const deviceId = enrolled.deviceId;
  const child = await spawnExecutor(['serve', '--key-dir', keyDir, '--log-level', 'warn']);
  try {
    await t.audited((e) => e.event === 'generation_acked' && e.deviceId === deviceId, 15_000);

    // Warm-up, then the two stream measurements back to back (raw first, then through the lane).
    await t.lane.dispatch(deviceId, {
      kind: 'exec',
      args: { command: 'head -c 1048576 /dev/zero' },
    }).outcome;
    const raw = await rawPipe();
    const aloneMBs = await executorAlone();
    const t0 = performance.now();
    const d = t.lane.dispatch(deviceId, {
      kind: 'execStream',
      args: { command: COMMAND },
      timeoutMs: 120_000,
    });
    let laneBytes = 0;
    d.output.onChunk((i) => {
      if (i.kind === 'stdout') laneBytes += i.data.length;
    });
    const outcome = await d.outcome;
    const laneMs = performance.now() - t0;
    if (!outcome.ok || laneBytes !== OUTPUT_MIB * MIB) {
      throw new Error(
        `stream did not complete: ${JSON.stringify(outcome)} after ${laneBytes} bytes`,
      );
    }

    const rtt: Record<'exists' | 'fileInfo', number[]> = { exists: [], fileInfo: [] };
    for (const kind of ['exists', 'fileInfo'] as const) {
      for (let i = 0; i < RTT_COUNT; i += 1) {
        const s = performance.now();
        const o = await t.lane.dispatch(deviceId, { kind, args: { path: workspace } }).outcome;
        if (!o.ok) throw new Error(`${kind} failed: ${JSON.stringify(o)}`);
        rtt[kind].push(performance.now() - s);
      }
    }
    // Where the lane spends a chunk: its strict parser (canonical base64 check) vs JSON.parse.
    const sample = encodeDataChunkFrame({
      gen: '1',
      instructionId: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W',
      streamSeq: 0,
      kind: 'stdout',
      dataB64: Buffer.alloc(65536).toString('base64'),
    });
    let p0 = performance.now();
    for (let i = 0; i < 200; i += 1) parseDeviceFrame(sample);
    const parseMs = (performance.now() - p0) / 200;
    p0 = performance.now();
    for (let i = 0; i < 200; i += 1) JSON.parse(sample);
    const jsonParseMs = (performance.now() - p0) / 200;
    const frames = microFrames();
    const signing = microSign();

    const rawMBs = raw.bytes / MIB / (raw.ms / 1000);
    const laneMBs = laneBytes / MIB / (laneMs / 1000);
    const date = new Date().toISOString().slice(0, 10);
    const lines = [
      `device executor benchmark, ${date}, node ${process.version}, ${OUTPUT_MIB} MiB output, ${RTT_COUNT} round trips per kind, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
      `| measurement | value |`,
      `|---|---|`,
      `| raw pipe read (\`${COMMAND}\`) | ${rawMBs.toFixed(0)} MiB/s |`,
      `| execStream through executor → lane (loopback WebSocket, 64 KiB base64 chunks) | ${laneMBs.toFixed(0)} MiB/s |`,
      `| ratio executor+lane / raw pipe (target ≥ 50 %) | ${((laneMBs / rawMBs) * 100).toFixed(0)} % |`,
      `| executor's half alone (child output → 64 KiB chunks → frame text, no socket) | ${aloneMBs.toFixed(0)} MiB/s (${((aloneMBs / rawMBs) * 100).toFixed(0)} % of raw) |`,
      `| \`exists\` round trip p50 / p99 (target p99 ≤ 5 ms) | ${pct(rtt.exists, 50).toFixed(2)} / ${pct(rtt.exists, 99).toFixed(2)} ms |`,
      `| \`fileInfo\` round trip p50 / p99 | ${pct(rtt.fileInfo, 50).toFixed(2)} / ${pct(rtt.fileInfo, 99).toFixed(2)} ms |`,
      `| lane: parseDeviceFrame of one 64 KiB chunk frame vs JSON.parse alone | ${parseMs.toFixed(2)} ms vs ${jsonParseMs.toFixed(2)} ms (caps the lane at ~${(64 / 1024 / (parseMs / 1000)).toFixed(0)} MiB/s) |`,
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
