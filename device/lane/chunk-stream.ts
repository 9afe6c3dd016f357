import type { Buffer } from 'node:buffer';
import type { DeviceChunkKind } from '../wire/index.ts';

export type StreamItem =
  { kind: 'stdout' | 'stderr' | 'data'; data: Buffer } | { kind: 'exit'; exitCode: number };

export type AcceptResult =
  | { status: 'duplicate' } // at or below the watermark, or already buffered: first write wins
  | { status: 'buffered' } // ahead of a gap
  | { status: 'delivered'; items: StreamItem[] }
  | { status: 'overflow'; message: string }
  | { status: 'violation'; message: string };

const sizeOf = (i: StreamItem) => (i.kind === 'exit' ? 0 : i.data.length);

/**
 * §4 reorder buffer for one instruction: delivers in `streamSeq` order, holds out-of-order chunks
 * within a bounded buffer, absorbs duplicates (first write wins), and cross-checks the exit
 * chunk (at most one, and nothing after it).
 */
export const makeChunkStream = (limits: { maxEntries: number; maxBytes: number }) => {
  let watermark = -1;
  const pending = new Map<number, StreamItem>();
  let pendingBytes = 0;
  let exitCode: number | undefined;
  let exitCount = 0;

  return {
    get watermark() {
      return watermark;
    },
    /** Chunks are held beyond a missing seq. */
    get hasGap() {
      return pending.size > 0;
    },
    get exitCount() {
      return exitCount;
    },
    get exitCode() {
      return exitCode;
    },
    accept(seq: number, kind: DeviceChunkKind, item: StreamItem): AcceptResult {
      void kind;
      if (seq <= watermark || pending.has(seq)) return { status: 'duplicate' };
      if (seq > watermark + 1) {
        if (pending.size + 1 > limits.maxEntries || pendingBytes + sizeOf(item) > limits.maxBytes) {
          return {
            status: 'overflow',
            message: `reorder buffer overflow waiting for streamSeq ${watermark + 1} (limit ${limits.maxEntries} entries / ${limits.maxBytes} bytes)`,
          };
        }
        pending.set(seq, item);
        pendingBytes += sizeOf(item);
        return { status: 'buffered' };
      }
      const items: StreamItem[] = [];
      let next: StreamItem | undefined = item;
      while (next !== undefined) {
        if (exitCount > 0) {
          return {
            status: 'violation',
            message: `streamSeq ${watermark + 1} arrived after the exit chunk (the exit chunk must be last)`,
          };
        }
        if (next.kind === 'exit') {
          exitCount += 1;
          exitCode = next.exitCode;
        }
        items.push(next);
        watermark += 1;
        next = pending.get(watermark + 1);
        if (next !== undefined) {
          pending.delete(watermark + 1);
          pendingBytes -= sizeOf(next);
        }
      }
      return { status: 'delivered', items };
    },
  };
};
export type ChunkStream = ReturnType<typeof makeChunkStream>;
