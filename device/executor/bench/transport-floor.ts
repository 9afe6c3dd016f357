// The transport floor of `npm run bench:device`, run as its own process: the same command's output
// cut into the same 64 KiB-raw base64 chunk frames (the executor's chunker and encoder) and written
// to a loopback WebSocket by the executor's frame writer, with nothing else — no protocol state, no
// outbox, no acks. The bench process only counts what arrives. What this reaches is the most the
// executor + lane path could reach on this machine with the spec's transport (JSON text frames,
// base64 payloads, masked client frames).
// Usage: transport-floor.ts <ws url> <command>; starts the command on the server's "go".
import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import { dataChunkFrameWriter } from '../../wire/index.ts';
import { realTimers } from '../../timers.ts';
import { makeChunker } from '../exec/chunker.ts';
import { makeFrameWriter } from '../frame-writer.ts';
import { CHUNK_COALESCE_MS } from '../limits.ts';

/** The executor pauses its producers at this many unacked bytes; the floor at this many queued. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

const [url, command] = process.argv.slice(2) as [string, string];
const ws = new WebSocket(url, { perMessageDeflate: false });
let socket: Duplex | undefined;
ws.once('upgrade', (res) => (socket = res.socket));
ws.once('message', () => {
  const writer = makeFrameWriter(socket as Duplex);
  const c0 = process.cpuUsage();
  const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'ignore'] });
  const chunker = makeChunker({
    maxBytesPerStream: Number.MAX_SAFE_INTEGER,
    clock: realTimers,
    coalesceMs: CHUNK_COALESCE_MS,
    emit: (c) => {
      if (c.kind === 'exit') return;
      const w = dataChunkFrameWriter({
        gen: '1',
        instructionId: 'ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W',
        streamSeq: c.seq,
        kind: c.kind,
        dataB64: c.b64,
      });
      writer.sendText(w.length, w.write);
    },
  });
  child.stdout.on('data', (d: Buffer) => {
    chunker.push('stdout', d);
    if (ws.bufferedAmount > MAX_QUEUED_BYTES) {
      child.stdout.pause();
      // Resumes once the socket has taken everything queued so far.
      socket?.once('drain', () => child.stdout.resume());
    }
  });
  // The close reason carries this process's CPU time since "go" (it fits the 123-byte limit).
  child.stdout.on('close', () => {
    chunker.exit(0);
    ws.close(1000, JSON.stringify(process.cpuUsage(c0)));
  });
});
ws.on('close', () => process.exit(0));
ws.on('error', () => process.exit(1));
