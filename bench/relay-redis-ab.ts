// `npx tsx bench/relay-redis-ab.ts [--seconds S]` (a benchmark, not a test): the split pair
// alone (phone on replica A, machine on replica B, one redis-server), for two or more relay
// builds side by side in interleaved rounds, so a change to the Redis path is judged in the same
// minutes as what it replaces. The build of this tree is `new`; BASE=/path/main.mjs adds `base`
// (e.g. an esbuild bundle of an older commit, built the way bench/relay-peers.ts builds), and
// OTHERS=label=/path.mjs,… more. SIZE (16384), PAIRS (1), ROUNDS (3). CPU per message of A, B and
// Redis from /proc, user and system time of A and B apart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { built, drive, freePort, launch, pairs, SECONDS, wait, type Proc } from './relay-peers.ts';

const SIZE = Number(process.env.SIZE ?? 16_384);
const PAIRS = Number(process.env.PAIRS ?? 1);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CLK_TCK = 100;

const port = await freePort();
const rdir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-redis-ab-'));
const redisArgs = [
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
];
const redis = await launch(
  '/usr/bin/redis-server',
  ['--dir', rdir, ...redisArgs],
  /Ready to accept/,
  rdir,
  () => port,
);
const builds: [string, string][] = [['new', await built('relay/main.ts')]];
if (process.env.BASE) builds.unshift(['base', process.env.BASE]);
for (const x of (process.env.OTHERS ?? '').split(',').filter(Boolean))
  builds.push(x.split('=') as [string, string]);

async function replica(bundle: string): Promise<Proc> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-relay-ab-'));
  const args = [
    ...['--port', '0', '--no-rate-limits', '--log-level', 'error', '--data-dir', dir],
    ...['--max-connections', '100000', '--max-connections-per-ip', '100000'],
    ...['--max-buffered-bytes', String(8 * 1024 * 1024), '--redis', `redis://127.0.0.1:${port}`],
  ];
  const prof = process.env.PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF_DIR] : [];
  return launch(
    process.execPath,
    [...prof, bundle, ...args],
    /listening on ws:\/\/[^:]+:(\d+)/,
    dir,
  );
}
/** [user, system] CPU µs of a process. */
function userSys(pid: number): [number, number] {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return [(Number(f[11]) / CLK_TCK) * 1e6, (Number(f[12]) / CLK_TCK) * 1e6];
}

const sets: { label: string; a: Proc; b: Proc }[] = [];
const stats = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true });
/** PUBLISH commands Redis has run so far: frames per PUBLISH is the batch size B achieved. */
const publishes = async () =>
  Number(/cmdstat_publish:calls=(\d+)/.exec(await stats.info('commandstats'))?.[1] ?? 0);
try {
  await stats.connect();
  for (const [label, bundle] of builds)
    sets.push({ label, a: await replica(bundle), b: await replica(bundle) });
  if (process.env.SHOW_PIDS) for (const s of sets) console.log(s.label, 'A', s.a.pid, 'B', s.b.pid);
  console.log(
    `split pair, ${SIZE} B msgs × ${PAIRS} pair(s), ${new Date().toISOString()}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '| round | build | msg/s | A µs/msg (user + sys) | B µs/msg (user + sys) | Redis µs/msg | total | frames per PUBLISH (est.) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (let r = 1; r <= ROUNDS; r++)
    for (const s of sets) {
      const ps = await pairs(
        { port: s.a.port, kind: 'ws' },
        { port: s.b.port, kind: 'ws' },
        PAIRS,
        12,
      );
      const before = [s.a.pid, s.b.pid].map(userSys);
      const p0 = await publishes();
      const res = await drive(ps, SIZE, [s.a.pid, s.b.pid, redis.pid]);
      // drive() closes the pairs after its window; attribute user/system time by its proportions.
      const after = [s.a.pid, s.b.pid].map(userSys);
      // Over the whole drive (warm-up included), against the frames of the measured window
      // scaled to it: an estimate of the batch size, not an exact count.
      const perPublish = (res.msgPerSec * (SECONDS + 0.5)) / Math.max(1, (await publishes()) - p0);
      const split = after.map(([u, y], i) => {
        const [u0, y0] = before[i] as [number, number];
        const share = (u - u0) / Math.max(1, u - u0 + (y - y0));
        const per = res.perProc[i] as number;
        return `${per.toFixed(1)} (${(per * share).toFixed(1)} + ${(per * (1 - share)).toFixed(1)})`;
      });
      console.log(
        `| ${r} | ${s.label} | ${Math.round(res.msgPerSec).toLocaleString('en-US')} | ${split.join(' | ')} | ${(res.perProc[2] as number).toFixed(1)} | ${res.cpuUsPerMsg.toFixed(1)} | ${perPublish.toFixed(1)} |`,
      );
    }
} finally {
  for (const s of sets) {
    await s.a.stop();
    await s.b.stop();
  }
  stats.disconnect();
  await redis.stop();
}
await wait(100);
