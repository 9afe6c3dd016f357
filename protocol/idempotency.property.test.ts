import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeIdempotencyCache } from './idempotency.ts';

const WINDOW_MS = 1000;
const MAX = 4;
const op = fc.record({
  kind: fc.constantFrom('remember', 'get', 'advance'),
  id: fc.integer({ min: 0, max: 9 }).map((i) => `r${i}`),
  dt: fc.integer({ min: 0, max: WINDOW_MS }),
});

describe('idempotency cache against a model (LRU of results + D11 window of seen ids)', () => {
  it('replays exactly the LRU results and recognises every id first seen within 2 × window', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        let t = 0;
        const cache = makeIdempotencyCache<string>({
          maxEntries: MAX,
          windowMs: WINDOW_MS,
          now: () => t,
        });
        const lru: [string, string][] = []; // least recent first
        const firstSeen = new Map<string, number>();
        ops.forEach((o, step) => {
          if (o.kind === 'advance') t += o.dt;
          else if (o.kind === 'remember') {
            const i = lru.findIndex(([k]) => k === o.id);
            if (i >= 0) lru.splice(i, 1);
            lru.push([o.id, `v${step}`]);
            if (lru.length > MAX) lru.shift();
            if (!firstSeen.has(o.id) || t - firstSeen.get(o.id)! > 2 * WINDOW_MS)
              firstSeen.set(o.id, t);
            cache.remember(o.id, `v${step}`);
          } else {
            const i = lru.findIndex(([k]) => k === o.id);
            const expected = i >= 0 ? lru[i]![1] : undefined;
            if (i >= 0) lru.push(...lru.splice(i, 1));
            expect(cache.get(o.id)).toBe(expected);
          }
          expect(cache.size).toBe(lru.length);
          for (const [id, at] of firstSeen) {
            const inLru = lru.some(([k]) => k === id);
            if (t - at <= 2 * WINDOW_MS || inLru) expect(cache.has(id)).toBe(true);
            else expect(cache.has(id)).toBe(false);
          }
        });
      }),
      { numRuns: 300 },
    );
  });
});
