// `npx tsx relay/redis/inbox-bench.ts`: CPU per frame of reading inbox batches off the
// subscriber socket on the receiving replica (a benchmark, not a test). The same byte stream —
// `message` pushes as Redis sends them, cut into 64 KiB reads like the socket's — through
// ioredis's RESP decoder (the subscriber before: it hands over each message whole, concatenated
// when it spans reads) then forEachEntry, against resp.ts + makeBatchReader (now: frames are
// views of the reads). ioredis's DataHandler and event emit are left out, so "before" is a lower
// bound. CPU time of the whole process (GC threads included), interleaved rounds, bounded.
import { createRequire } from 'node:module';
import { encodePublish, forEachEntry, makeBatchReader } from './batch.ts';
import { makeRespReader } from './resp.ts';

const require = createRequire(import.meta.url);
type Decoder = { write(chunk: Buffer): void };
const { Decoder, RESP_TYPES } = require('ioredis/built/resp/decoder.js') as {
  Decoder: new (o: object) => Decoder;
  RESP_TYPES: Record<string, number>;
};

const ROUNDS = 5;
const FRAMES_PER_ROUND = 200_000;
const READ_BYTES = 64 * 1024;
const HEADER = Buffer.from('0123456789abcdefb-');
const CHANNEL = 'relay:in:0123456789abcdef';
const ROOM = 'r0000001abcdefghijklmn';

/** The bytes Redis sends a subscriber for `batches` inbox messages of `perBatch` frames each. */
function stream(frameBytes: number, perBatch: number, batches: number): Buffer[] {
  const frame = Buffer.alloc(frameBytes, 0x41);
  const parts: Buffer[] = [];
  for (let b = 0; b < batches; b++) {
    const entries = Array.from({ length: perBatch }, () => ({
      room: ROOM,
      role: 'phone' as const,
      frame,
    }));
    const publish = encodePublish(CHANNEL, HEADER, entries);
    const message = publish.subarray(publish.indexOf(HEADER), publish.length - 2);
    parts.push(
      Buffer.from(
        `*3\r\n$7\r\nmessage\r\n$${CHANNEL.length}\r\n${CHANNEL}\r\n$${message.length}\r\n`,
      ),
      message,
      Buffer.from('\r\n'),
    );
  }
  const all = Buffer.concat(parts);
  const reads: Buffer[] = [];
  for (let i = 0; i < all.length; i += READ_BYTES)
    reads.push(Buffer.from(new Uint8Array(all.subarray(i, i + READ_BYTES))));
  return reads;
}

let sink = 0;
const deliver = (_room: string, _role: string, f: Buffer) => {
  sink += f.length;
};

function before(reads: Buffer[]): number {
  let n = 0;
  const d = new Decoder({
    getTypeMapping: () => ({
      [RESP_TYPES.SIMPLE_STRING as number]: Buffer,
      [RESP_TYPES.BLOB_STRING as number]: Buffer,
    }),
    onReply: (reply: Buffer[]) => {
      const message = reply[2] as Buffer;
      forEachEntry(message.subarray(HEADER.length), (r, o, f) => {
        n++;
        deliver(r, o, f);
      });
    },
    onErrorReply: () => undefined,
    onPush: () => undefined,
  });
  for (const r of reads) d.write(r);
  return n;
}

function now(reads: Buffer[]): number {
  let n = 0;
  const batch = makeBatchReader(HEADER.length, (r, o, f) => {
    n++;
    deliver(r, o, f);
  });
  const reader = makeRespReader({
    reply: () => undefined,
    messageStart: (_c, bytes) => batch.start(bytes),
    messageData: (p) => batch.push(p),
    messageEnd: () => batch.end(),
  });
  for (const r of reads) reader.push(r);
  return n;
}

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
for (const [label, bytes, perBatch] of [
  ['1 KiB, 64 per batch', 1_024, 64],
  ['16 KiB, 4 per batch', 16_384, 4],
] as const) {
  // A few MB, read over and over: a socket's reads are fresh in cache, not streamed from DRAM.
  const batches = Math.ceil(2_000_000 / (bytes * perBatch));
  const reads = stream(bytes, perBatch, batches);
  const repeat = Math.ceil(FRAMES_PER_ROUND / (batches * perBatch));
  const ns: Record<string, number[]> = { before: [], now: [] };
  for (let r = 0; r < ROUNDS; r++)
    for (const [name, f] of [
      ['before', before],
      ['now', now],
    ] as const) {
      const c0 = cpuUs();
      let frames = 0;
      for (let k = 0; k < repeat; k++) frames += f(reads);
      ns[name]?.push(((cpuUs() - c0) * 1_000) / frames);
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  console.log(
    `${label}: before (ioredis decoder + forEachEntry) ${med(ns.before ?? []).toFixed(0)} ns/frame, now (resp.ts + makeBatchReader) ${med(ns.now ?? []).toFixed(0)} ns/frame (median of ${ROUNDS}; rounds ${(ns.before ?? []).map((x) => x.toFixed(0)).join('/')} vs ${(ns.now ?? []).map((x) => x.toFixed(0)).join('/')})`,
  );
}
if (sink === 0) console.log('nothing delivered');
