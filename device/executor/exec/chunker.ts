// Turns raw output into chunks (§4, X4): ≤ 64 KiB raw each, canonical base64 (Node's encoder is
// canonical), contiguous streamSeq from 0, exactly one `exit` chunk last, and a per-stream byte
// cap after which the rest is dropped and flagged truncated. Consecutive small writes of one
// kind are coalesced for a few ms so a chatty command does not produce thousands of tiny chunks.
import type { Clock, TimerHandle } from '../clock.ts';
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
  readonly clock: Clock;
  /** 0 emits on every push (no coalescing). */
  readonly coalesceMs: number;
};

export const makeChunker = (opts: ChunkerOptions): Chunker => {
  const counted: Record<DataKind, number> = { stdout: 0, stderr: 0, data: 0 };
  const truncated: Record<DataKind, boolean> = { stdout: false, stderr: false, data: false };
  let seq = 0;
  let closed = false;
  let pendingKind: DataKind = 'stdout';
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let timer: TimerHandle | undefined;

  const emitData = (kind: DataKind, raw: Buffer) =>
    opts.emit({ seq: seq++, kind, b64: raw.toString('base64'), bytes: raw.length });

  const drain = (all: boolean) => {
    if (pendingLen === 0) return;
    let buf = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingLen);
    while (buf.length >= MAX_CHUNK_RAW_BYTES || (all && buf.length > 0)) {
      const n = Math.min(buf.length, MAX_CHUNK_RAW_BYTES);
      emitData(pendingKind, buf.subarray(0, n));
      buf = buf.subarray(n);
    }
    pending = buf.length > 0 ? [buf] : [];
    pendingLen = buf.length;
  };

  const flush = () => {
    timer?.cancel();
    timer = undefined;
    drain(true);
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
      pending.push(buf);
      pendingLen += buf.length;
      if (opts.coalesceMs === 0) return flush();
      drain(false);
      if (pendingLen > 0 && !timer) timer = opts.clock.after(opts.coalesceMs, flush);
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
