import { describe, expect, it } from 'vitest';
import { MACHINE_BACKOFF, PHONE_BACKOFF, backoffDelayMs, isErrorState } from './backoff.ts';

const top = () => 0.999999;
const bottom = () => 0;

describe('backoff (spec "Heartbeat": 0.5s→30s jittered)', () => {
  it('the ceiling doubles from 0.5 s and stops at 30 s', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => backoffDelayMs(n, top, PHONE_BACKOFF));
    expect(ceilings).toEqual([499, 999, 1999, 3999, 7999, 15999, 29999, 29999, 29999]);
  });

  it('full jitter: the delay is random × ceiling', () => {
    expect(backoffDelayMs(3, () => 0.5, PHONE_BACKOFF)).toBe(1000);
    expect(backoffDelayMs(3, bottom, PHONE_BACKOFF)).toBe(0);
  });

  it('phone: unlimited, never an error state', () => {
    expect(isErrorState(1000, PHONE_BACKOFF)).toBe(false);
    expect(backoffDelayMs(1000, top, PHONE_BACKOFF)).toBe(29999);
  });

  it('machine: an error state after 10 consecutive failures, then every 60 s', () => {
    expect(isErrorState(9, MACHINE_BACKOFF)).toBe(false);
    expect(backoffDelayMs(9, top, MACHINE_BACKOFF)).toBe(29999);
    expect(isErrorState(10, MACHINE_BACKOFF)).toBe(true);
    expect(backoffDelayMs(10, bottom, MACHINE_BACKOFF)).toBe(60_000);
    expect(backoffDelayMs(500, top, MACHINE_BACKOFF)).toBe(60_000);
  });

  it('no failure yet means no delay', () => {
    expect(backoffDelayMs(0, top, PHONE_BACKOFF)).toBe(0);
  });
});
