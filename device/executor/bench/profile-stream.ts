// Profiling aid for the stream of `npm run bench:device`: a 64 MiB warm-up, then
// BENCH_DEVICE_REPS (1) execStreams of BENCH_DEVICE_MIB (256) through executor (the esbuild bundle,
// plain node, with EXEC_NODE_FLAGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p") and lane (this
// process: run it with `node --cpu-prof --import tsx …`). Prints the medians of MiB/s and of the
// CPU per 64 MiB (user + kernel) of both processes; VERBOSE=1 prints every round.
import { enrolledLane } from './enrolled-lane.ts';
import { bundleExecutor } from '../test-support/child.ts';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MIB = 1024 * 1024;
const OUTPUT_MIB = Number(process.env.BENCH_DEVICE_MIB ?? 256);
const REPS = Number(process.env.BENCH_DEVICE_REPS ?? 1);
const COMMAND = `head -c ${OUTPUT_MIB * MIB} /dev/zero`;
const procCpu = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { u: Number(f[11]) * 10, s: Number(f[12]) * 10 };
};
const { tmp, t, keyDir, deviceId } = await enrolledLane();
const main = await bundleExecutor();
const flags = (process.env.EXEC_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const cp = spawn(
  process.execPath,
  [...flags, main, 'serve', '--key-dir', keyDir, '--log-level', 'warn'],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
const child = { pid: cp.pid as number, child: cp, exited: new Promise((r) => cp.once('exit', r)) };
await t.audited((e) => e.event === 'generation_acked' && e.deviceId === deviceId, 15_000);
await t.lane.dispatch(deviceId, {
  kind: 'execStream',
  args: { command: 'head -c 67108864 /dev/zero' },
  timeoutMs: 120_000,
}).outcome;
const rows: number[][] = [];
for (let r = 0; r < REPS; r++) {
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
  const o = await d.outcome;
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const e1 = procCpu(child.pid);
  const f = 64 / OUTPUT_MIB;
  rows.push([
    bytes / MIB / (ms / 1000),
    (c.user / 1000) * f,
    (c.system / 1000) * f,
    (e1.u - e0.u) * f,
    (e1.s - e0.s) * f,
  ]);
  if (process.env.VERBOSE)
    console.log(
      JSON.stringify({
        ok: o.ok,
        bytes,
        mibs: (bytes / MIB / (ms / 1000)).toFixed(0),
        laneU: ((c.user / 1000) * f).toFixed(0),
        laneS: ((c.system / 1000) * f).toFixed(0),
        exeU: ((e1.u - e0.u) * f).toFixed(0),
        exeS: ((e1.s - e0.s) * f).toFixed(0),
      }),
    );
}
const med = (i: number) => {
  const s = rows.map((r) => r[i]!).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!.toFixed(0);
};
console.log(
  `${process.env.TAG ?? ''} MiB/s ${med(0)} lane ${med(1)}+${med(2)} exe ${med(3)}+${med(4)} (median of ${REPS}, per 64 MiB user+sys ms)`,
);
child.child.kill('SIGTERM');
await child.exited;
await t.stop();
tmp.cleanup();
