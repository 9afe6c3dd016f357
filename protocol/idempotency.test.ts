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
    let t = 0;
    const cache = makeIdempotencyCache<number>({ now: () => t });
    for (let i = 0; i < 300; i++) cache.remember(`r${i}`, i);
    expect(cache.size).toBe(256);
    expect(cache.get('r0')).toBeUndefined();
    expect(cache.get('r299')).toBe(299);
    t += 1;
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
