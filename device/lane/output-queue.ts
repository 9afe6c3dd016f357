import type { StreamItem } from './chunk-stream.ts';

export type OutputLimits = { maxBytes: number; maxEntries: number };

/**
 * The host's view of an instruction's output: an async iterable that yields chunks in stream
 * order and ends when the instruction settles, or callbacks via onChunk. §4's consumer-side
 * pending-delivery bound applies to what is buffered and not yet pulled: past it, `onOverflow`
 * fires once (the lane cancels the remote command) and further output is discarded.
 */
export const makeOutputQueue = (limits?: OutputLimits, onOverflow?: () => void) => {
  const items: StreamItem[] = [];
  let bytes = 0;
  let ended = false;
  let overflowed = false;
  let wake: (() => void) | undefined;
  let iterating = false;
  const listeners = new Set<(i: StreamItem) => void>();
  const size = (i: StreamItem) => (i.kind === 'exit' ? 0 : i.data.length);
  return {
    push(i: StreamItem) {
      if (ended || overflowed) return;
      for (const l of listeners) l(i);
      // Callback-only hosts are not made to hold every chunk in memory as well.
      if (!iterating && listeners.size > 0) return;
      items.push(i);
      bytes += size(i);
      if (limits !== undefined && (bytes > limits.maxBytes || items.length > limits.maxEntries)) {
        overflowed = true;
        onOverflow?.();
      }
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    get overflowed() {
      return overflowed;
    },
    onChunk(l: (i: StreamItem) => void): () => void {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    async *[Symbol.asyncIterator](): AsyncIterator<StreamItem> {
      iterating = true;
      for (;;) {
        const next = items.shift();
        if (next !== undefined) {
          bytes -= size(next);
          yield next;
          continue;
        }
        if (ended) return;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    },
  };
};
export type OutputQueue = ReturnType<typeof makeOutputQueue>;
