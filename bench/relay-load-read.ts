// `npx tsx bench/relay-load-read.ts` (a benchmark, not a test): what the load generator of
// bench/relay-load.ts pays to read frames, with net's 'data' events (a fresh 64 KiB buffer per
// read, collected later) against `onread` into one shared buffer (what openSocket does now). A
// child process writes server frames of SIZE (16384) bytes as fast as the socket takes them;
// this process's CPU per frame read through FrameReader; interleaved rounds of 1 s.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { FrameReader } from './relay-load.ts';

const SIZE = Number(process.env.SIZE ?? 16_384);
const ROUNDS = 5;
const ROUND_MS = 1_000;
const SERVER = `
const net = require('node:net');
const n = ${SIZE};
const f = Buffer.concat([Buffer.from([0x81, 126, n >> 8, n & 255]), Buffer.alloc(n, 65)]);
const burst = Buffer.concat(Array(16).fill(f));
net.createServer((s) => {
  const go = () => { while (s.write(burst)); };
  s.on('drain', go);
  s.on('error', () => {});
  go();
}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });
`;

const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((r) =>
  server.stdout.once('data', (d: Buffer) => r(Number(String(d)))),
);
const shared = Buffer.allocUnsafe(64 * 1024);
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function round(kind: 'data' | 'onread'): Promise<number> {
  let frames = 0;
  const reader = new FrameReader(12, () => void frames++);
  const sock =
    kind === 'data'
      ? net.connect(port, '127.0.0.1').on('data', (d: Buffer) => reader.push(d))
      : net.connect({
          port,
          host: '127.0.0.1',
          onread: {
            buffer: shared,
            callback: (n: number) => {
              reader.push(shared.subarray(0, n));
              return true;
            },
          },
        });
  await wait(200);
  const [f0, c0] = [frames, process.cpuUsage()];
  await wait(ROUND_MS);
  const c = process.cpuUsage(c0);
  const n = frames - f0;
  sock.destroy();
  return (c.user + c.system) / n;
}

try {
  const res = { data: [] as number[], onread: [] as number[] };
  for (let i = 0; i < ROUNDS; i++)
    for (const k of ['data', 'onread'] as const) res[k].push(await round(k));
  const med = (xs: number[]) =>
    ([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number).toFixed(2);
  const all = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
  console.log(
    `${SIZE}-byte frames, generator CPU µs per frame read (median of ${ROUNDS}): 'data' events ${med(res.data)} (${all(res.data)}); onread, one buffer ${med(res.onread)} (${all(res.onread)})`,
  );
} finally {
  server.kill();
}
