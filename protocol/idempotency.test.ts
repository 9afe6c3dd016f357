import { describe, expect, it } from 'vitest';
import { isStaleRequest, makeIdempotencyCache } from './idempotency.ts';
import { REQUEST_WINDOW_MS } from './limits.ts';

describe('idempotency cache (spec: LRU 256 of requestIds; D11 window)', () => {
  it('replays the original result for a duplicate requestId', () => {
    const cache = makeIdempotencyCache<string>();
    cache.remember('r1', 'first');
    expect(cache.has('r1')).toBe(true);
    expect(cache.get('r1')).toBe('first');
    expect(cache.get('r2')).toBeUndefined();
  });

  it('keeps the results of the last 256 only', () => {
    const cache = makeIdempotencyCache<number>();
    for (let i = 0; i < 300; i++) cache.remember(`r${i}`, i);
    expect(cache.size).toBe(256);
    expect(cache.get('r0')).toBeUndefined();
    expect(cache.get('r299')).toBe(299);
  });

  it('D11: an evicted id seen within the window is still recognised', () => {
    let t = 1_000_000;
    const cache = makeIdempotencyCache<number>({ now: () => t });
    for (let i = 0; i < 300; i++) cache.remember(`r${i}`, i);
    expect(cache.get('r0')).toBeUndefined();
    expect(cache.has('r0')).toBe(true);
    t += 2 * REQUEST_WINDOW_MS;
    expect(cache.has('r0')).toBe(true);
    t += 1;
    expect(cache.has('r0')).toBe(false);
  });

  it('D11: a request more than 5 minutes from the clock is stale', () => {
    expect(isStaleRequest(0, REQUEST_WINDOW_MS)).toBe(false);
    expect(isStaleRequest(0, REQUEST_WINDOW_MS + 1)).toBe(true);
    expect(isStaleRequest(REQUEST_WINDOW_MS + 1, 0)).toBe(true);
  });
});

describe('idempotency cache details', () => {
  it('LRU: reading a result keeps it; the least recently used one is evicted', () => {
    const cache = makeIdempotencyCache<number>({ maxEntries: 3 });
    cache.remember('a', 1);
    cache.remember('b', 2);
    cache.remember('c', 3);
    expect(cache.get('a')).toBe(1);
    cache.remember('d', 4);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
  });

  it('D11: ids seen within the window are remembered past 256, and forgotten after it', () => {
    let t = 0;
    const cache = makeIdempotencyCache<number>({ now: () => t });
    for (let i = 0; i < 5000; i++) cache.remember(`r${i}`, i);
    expect(cache.size).toBe(256);
    expect(cache.seenCount).toBe(5000);
    expect(cache.has('r0')).toBe(true);
    t = 2 * REQUEST_WINDOW_MS + 1;
    // Ids older than the window are dropped (memory stays bounded by traffic in the window);
    // the last 256 results stay replayable.
    expect(cache.has('r0')).toBe(false);
    expect(cache.seenCount).toBe(256);
    expect(cache.get('r4999')).toBe(4999);
  });

  it('an id remembered again keeps its first-seen time (a replay cannot extend its own window)', () => {
    let t = 0;
    const cache = makeIdempotencyCache<number>({ maxEntries: 1, now: () => t });
    cache.remember('a', 1);
    t = 2 * REQUEST_WINDOW_MS - 10;
    cache.remember('a', 1);
    cache.remember('b', 2); // evicts a's result
    t = 2 * REQUEST_WINDOW_MS + 1;
    expect(cache.has('a')).toBe(false);
  });
});
