// The machine's requestId cache (spec "Idempotency & limits" + D11). Results of the last 256
// requests are replayed to duplicates (double-tap safe); beyond that, every id seen within the
// replay window is still recognised, so a relay cannot replay a recorded action after eviction.
import { IDEMPOTENCY_CACHE_ENTRIES, REQUEST_WINDOW_MS } from './limits.ts';

export type IdempotencyCache<R> = {
  /** The original result, when it is still among the last `maxEntries`. */
  get(requestId: string): R | undefined;
  remember(requestId: string, result: R): void;
  /** True for any id seen within the window, even when its result was evicted. */
  has(requestId: string): boolean;
  /** Results held (≤ maxEntries). */
  readonly size: number;
  /** Ids recognised (results held plus ids remembered only for the window). */
  readonly seenCount: number;
};

export type IdempotencyOptions = { maxEntries?: number; windowMs?: number; now?: () => number };

/**
 * D11 accepts an action while |ts − now| ≤ windowMs. An id first seen at t carried ts ≤ t + W,
 * so a replay is accepted only until t + 2W: that is how long an id must be remembered.
 */
export function makeIdempotencyCache<R>(options: IdempotencyOptions = {}): IdempotencyCache<R> {
  const maxEntries = options.maxEntries ?? IDEMPOTENCY_CACHE_ENTRIES;
  const windowMs = options.windowMs ?? REQUEST_WINDOW_MS;
  const now = options.now ?? Date.now;
  const results = new Map<string, R>(); // insertion order = least recently used first
  const seenAt = new Map<string, number>(); // insertion order = first seen first

  function prune(): void {
    const oldest = now() - 2 * windowMs;
    for (const [rid, at] of seenAt) {
      if (at >= oldest) break;
      seenAt.delete(rid);
    }
  }

  return {
    get(requestId) {
      const r = results.get(requestId);
      if (r === undefined) return undefined;
      results.delete(requestId);
      results.set(requestId, r);
      return r;
    },
    remember(requestId, result) {
      prune();
      results.delete(requestId);
      results.set(requestId, result);
      if (results.size > maxEntries) results.delete(results.keys().next().value as string);
      if (!seenAt.has(requestId)) seenAt.set(requestId, now());
    },
    has(requestId) {
      prune();
      return results.has(requestId) || seenAt.has(requestId);
    },
    get size() {
      return results.size;
    },
    get seenCount() {
      prune();
      let n = seenAt.size;
      for (const k of results.keys()) if (!seenAt.has(k)) n++;
      return n;
    },
  };
}

/** D11: a phone action whose ts is further than the window from the machine's clock is stale. */
export const isStaleRequest = (ts: number, nowMs: number, windowMs = REQUEST_WINDOW_MS): boolean =>
  !Number.isFinite(ts) || Math.abs(nowMs - ts) > windowMs;
