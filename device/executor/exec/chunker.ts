// Turns raw output into chunks (§4, X4): ≤ 64 KiB raw each, canonical base64 (Node's encoder is
// canonical), contiguous streamSeq from 0, exactly one `exit` chunk last, and a per-stream byte
// cap after which the rest is dropped and flagged truncated. Consecutive small writes of one
// kind are coalesced for a few ms so a chatty command does not produce thousands of tiny chunks.
import type { TimerHandle, Timers } from '../../timers.ts';
import { MAX_CHUNK_RAW_BYTES } from '../limits.ts';

export type DataKind = 'stdout' | 'stderr' | 'data';
export type OutChunk =
  | { readonly seq: number; readonly kind: DataKind; readonly b64: string; readonly bytes: number }
  | { readonly seq: number; readonly kind: 'exit'; readonly exitCode: number; readonly bytes: 0 };

export type Chunker = {
  push(kind: DataKind, buf: Buffer): void;
  /** Emits whatever is pending. */
  flush(): void;
  /** Flushes, then emits the single trailing exit chunk. Nothing may be pushed afterwards. */
  exit(exitCode: number): void;
  readonly truncated: Readonly<Record<DataKind, boolean>>;
  readonly emitted: number;
};

export type ChunkerOptions = {
  readonly maxBytesPerStream: number;
  readonly emit: (chunk: OutChunk) => void;
  readonly clock: Timers;
  /** 0 emits on every push (no coalescing). */
  readonly coalesceMs: number;
};

export const makeChunker = (opts: ChunkerOptions): Chunker => {
  const counted: Record<DataKind, number> = { stdout: 0, stderr: 0, data: 0 };
  const truncated: Record<DataKind, boolean> = { stdout: false, stderr: false, data: false };
  let seq = 0;
  let closed = false;
  let pendingKind: DataKind = 'stdout';
  // Bytes waiting to fill a chunk are copied into one staging buffer that lives as long as the
  // chunker: pipe reads come in 64 KiB, 48 KiB and 4 KiB pieces, and joining them with
  // Buffer.concat took a fresh 64 KiB allocation per chunk (~25 µs each with its page faults and
  // GC, against ~3 µs for a copy into memory already touched). A chunk never outlives its emit:
  // the base64 text is a copy.
  const staging = Buffer.allocUnsafe(MAX_CHUNK_RAW_BYTES);
  let pendingLen = 0;
  let timer: TimerHandle | undefined;

  const emitData = (kind: DataKind, raw: Buffer) =>
    opts.emit({ seq: seq++, kind, b64: raw.toString('base64'), bytes: raw.length });

  /** Takes `buf` into the pending bytes, emitting every full chunk (and the rest when `all`). */
  const take = (buf: Buffer, all: boolean) => {
    let at = 0;
    if (pendingLen > 0) {
      at = Math.min(buf.length, MAX_CHUNK_RAW_BYTES - pendingLen);
      buf.copy(staging, pendingLen, 0, at);
      pendingLen += at;
      if (pendingLen < MAX_CHUNK_RAW_BYTES && !(all && at === buf.length)) return;
      emitData(pendingKind, staging.subarray(0, pendingLen));
      pendingLen = 0;
    }
    // Whole chunks straight from the read buffer, without a copy.
    while (buf.length - at >= MAX_CHUNK_RAW_BYTES || (all && buf.length > at)) {
      const n = Math.min(buf.length - at, MAX_CHUNK_RAW_BYTES);
      emitData(pendingKind, buf.subarray(at, at + n));
      at += n;
    }
    if (at < buf.length) {
      buf.copy(staging, 0, at);
      pendingLen = buf.length - at;
    }
  };

  const flush = () => {
    if (timer) opts.clock.clearTimeout(timer);
    timer = undefined;
    if (pendingLen === 0) return;
    emitData(pendingKind, staging.subarray(0, pendingLen));
    pendingLen = 0;
  };

  return {
    push(kind, input) {
      if (closed) throw new Error('chunker: push after exit');
      const room = opts.maxBytesPerStream - counted[kind];
      const buf = input.length > room ? input.subarray(0, Math.max(0, room)) : input;
      if (buf.length < input.length) truncated[kind] = true;
      if (buf.length === 0) return;
      counted[kind] += buf.length;
      if (kind !== pendingKind) flush();
      pendingKind = kind;
      take(buf, opts.coalesceMs === 0);
      if (opts.coalesceMs === 0) return;
      if (pendingLen > 0 && !timer) timer = opts.clock.setTimeout(flush, opts.coalesceMs);
    },
    flush,
    exit(exitCode) {
      if (closed) throw new Error('chunker: second exit');
      flush();
      closed = true;
      opts.emit({ seq: seq++, kind: 'exit', exitCode, bytes: 0 });
    },
    truncated,
    get emitted() {
      return seq;
    },
  };
};
