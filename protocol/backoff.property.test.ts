import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MACHINE_BACKOFF, PHONE_BACKOFF, backoffDelayMs, isErrorState } from './backoff.ts';

const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const ceiling = (attempt: number) => Math.min(30_000, 500 * 2 ** (attempt - 1));

describe('backoff properties (spec "Heartbeat": 0.5s→30s jittered; plugin error state after 10)', () => {
  it('phone: every delay lies in [0, min(30 s, 0.5 s · 2^(n−1))), for any attempt, forever', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), unit, (n, r) => {
        const d = backoffDelayMs(n, () => r, PHONE_BACKOFF);
        expect(Number.isInteger(d)).toBe(true);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(ceiling(n));
        expect(isErrorState(n, PHONE_BACKOFF)).toBe(false);
      }),
    );
  });

  it('machine: the same curve for the first 9 failures, then a fixed 60 s in the error state', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), unit, (n, r) => {
        const d = backoffDelayMs(n, () => r, MACHINE_BACKOFF);
        if (n < 10) {
          expect(d).toBe(backoffDelayMs(n, () => r, PHONE_BACKOFF));
          expect(isErrorState(n, MACHINE_BACKOFF)).toBe(false);
        } else {
          expect(d).toBe(60_000);
          expect(isErrorState(n, MACHINE_BACKOFF)).toBe(true);
        }
      }),
    );
  });

  it('pure: the same attempt and random value give the same delay; the ceiling never shrinks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), unit, (n, r) => {
        expect(backoffDelayMs(n, () => r, PHONE_BACKOFF)).toBe(
          backoffDelayMs(n, () => r, PHONE_BACKOFF),
        );
        expect(backoffDelayMs(n + 1, () => r, PHONE_BACKOFF)).toBeGreaterThanOrEqual(
          backoffDelayMs(n, () => r, PHONE_BACKOFF),
        );
      }),
    );
  });

  it('jitter spreads: distinct random values give distinct delays once the ceiling is large', () => {
    const delays = new Set(
      [0.1, 0.3, 0.5, 0.7, 0.9].map((r) => backoffDelayMs(8, () => r, PHONE_BACKOFF)),
    );
    expect(delays.size).toBe(5);
  });

  it.each([[NaN], [Infinity], [-1], [2]])(
    'a broken random source (%s) still gives a sane delay',
    (x) => {
      const d = backoffDelayMs(3, () => x, PHONE_BACKOFF);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(2000);
    },
  );
});
