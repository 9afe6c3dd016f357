import type { StreamItem } from './chunk-stream.ts';

/**
 * The host's view of an instruction's output: an async iterable that yields chunks in stream
 * order and ends when the instruction settles. Bounded by the reorder limits upstream; items not
 * yet pulled stay here, so a host that never reads should not dispatch large reads.
 */
export const makeOutputQueue = () => {
  const items: StreamItem[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  let iterating = false;
  const listeners = new Set<(i: StreamItem) => void>();
  return {
    push(i: StreamItem) {
      if (ended) return;
      // Callback-only hosts are not made to hold every chunk in memory as well.
      if (iterating || listeners.size === 0) items.push(i);
      for (const l of listeners) l(i);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    /** Push-style consumption, for hosts that prefer callbacks to iteration. */
    onChunk(l: (i: StreamItem) => void): () => void {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    async *[Symbol.asyncIterator](): AsyncIterator<StreamItem> {
      iterating = true;
      for (;;) {
        const next = items.shift();
        if (next !== undefined) {
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
