// Token bucket: `burst` tokens, refilled at `ratePerMs`. Two numbers per bucket, so one fits on
// every socket without a per-socket timer.
export type Bucket = { tokens: number; updatedMs: number };

export const makeBucket = (burst: number, nowMs: number): Bucket => ({
  tokens: burst,
  updatedMs: nowMs,
});

/** Adds the tokens earned since the last update. */
export function refill(b: Bucket, nowMs: number, ratePerMs: number, burst: number): void {
  if (nowMs > b.updatedMs) {
    b.tokens = Math.min(burst, b.tokens + (nowMs - b.updatedMs) * ratePerMs);
    b.updatedMs = nowMs;
  }
}

/** Takes one token if there is one; refills lazily from the elapsed time. (On the per-frame
 * path: kept as its own few lines rather than a call to refill.) */
export function take(b: Bucket, nowMs: number, ratePerMs: number, burst: number): boolean {
  if (nowMs > b.updatedMs) {
    b.tokens = Math.min(burst, b.tokens + (nowMs - b.updatedMs) * ratePerMs);
    b.updatedMs = nowMs;
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}
