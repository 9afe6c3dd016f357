import { describe, expect, it } from 'vitest';
import { reconnectDelayMs } from './backoff.ts';

describe('reconnect backoff (§1.4, §7)', () => {
  it('§1.4: starts at 1 s, doubles, is jittered upwards by at most half, and never passes 60 s', () => {
    const at = (attempt: number, r: number) => reconnectDelayMs(attempt, () => r, 1000, 60_000);
    expect(at(0, 0)).toBe(1000);
    expect(at(0, 0.999)).toBeLessThanOrEqual(1500);
    expect(at(1, 0)).toBe(2000);
    expect(at(5, 0)).toBe(32_000);
    expect(at(6, 0.5)).toBe(60_000);
    expect(at(1000, 1)).toBe(60_000);
    const spread = new Set(Array.from({ length: 20 }, (_, i) => at(3, i / 20)));
    expect(spread.size).toBeGreaterThan(10); // jitter: a fleet does not reconnect in step
  });
});
