// §1.1: 10 requests per 60 s per caller identity, fixed window, one bucket per endpoint. A limiter
// that cannot answer refuses (fail closed), which the HTTP plane turns into a 429 as well.
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSec: number };
export type RateLimiter = { take(key: string): RateDecision };

export const makeFixedWindowLimiter = (opts: {
  limit: number;
  windowMs: number;
  now: () => number;
}): RateLimiter => {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    take(key) {
      const t = opts.now();
      let w = windows.get(key);
      if (w === undefined || t - w.start >= opts.windowMs) {
        w = { start: t, count: 0 };
        windows.set(key, w);
        // Bound memory: windows of identities that went quiet are dropped.
        if (windows.size > 10_000) {
          for (const [k, v] of windows) if (t - v.start >= opts.windowMs) windows.delete(k);
        }
      }
      if (w.count < opts.limit) {
        w.count += 1;
        return { allowed: true };
      }
      return {
        allowed: false,
        retryAfterSec: Math.max(1, Math.ceil((w.start + opts.windowMs - t) / 1000)),
      };
    },
  };
};
