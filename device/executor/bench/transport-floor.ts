// The transport floor of `npm run bench:device`, run as its own process: the same command's output
// cut into the same 64 KiB-raw base64 chunk frames (the executor's encoder) and written to a
// loopback WebSocket, with nothing else — no protocol state, no outbox, no acks. The bench process
// only counts what arrives. What this reaches is the most the executor + lane path could reach on
// this machine with the spec's transport (JSON text frames, base64 payloads).
// Usage: transport-floor.ts <ws url> <command>; starts the command on the server's "go".
import { spawn } from 'node:child_process';
import { WebSocket } from 'ws';
import { encodeDataChunkFrameBytes } from '../../wire/index.ts';
import { MAX_CHUNK_RAW_BYTES } from '../limits.ts';

/** The executor pauses its producers at this many unacked bytes; the floor at this many queued. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

const [url, command] = process.argv.slice(2) as [string, string];
const ws = new WebSocket(url, { perMessageDeflate: false });
ws.once('message', () => {
  const c0 = process.cpuUsage();
  const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'ignore'] });
  let streamSeq = 0;
  child.stdout.on('data', (d: Buffer) => {
    const over = ws.bufferedAmount > MAX_QUEUED_BYTES;
    if (over) child.stdout.pause();
    for (let o = 0; o < d.length; o += MAX_CHUNK_RAW_BYTES) {
      const dataB64 = d.subarray(o, o + MAX_CHUNK_RAW_BYTES).toString('base64');
      const frame = encodeDataChunkFrameBytes({
        gen: '1',
        instructionId: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W',
        streamSeq: streamSeq++,
        kind: 'stdout',
        dataB64,
      });
      const last = o + MAX_CHUNK_RAW_BYTES >= d.length;
      // Resumes once the socket has taken this frame (the queue is then empty).
      ws.send(frame, { binary: false }, last && over ? () => child.stdout.resume() : undefined);
    }
  });
  // The close reason carries this process's CPU time since "go" (it fits the 123-byte limit).
  child.stdout.on('close', () => ws.close(1000, JSON.stringify(process.cpuUsage(c0))));
});
ws.on('close', () => process.exit(0));
ws.on('error', () => process.exit(1));
