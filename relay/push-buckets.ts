// Push rate limits (D3, H1): a token bucket per room and one per machine IP key (IPv6 per /64),
// so one client cannot multiply its pushes by joining many rooms. A hint must find a token in
// both; neither is spent when the other refuses. Buckets that have refilled are dropped, so
// memory follows the active rooms and IPs, not every one ever seen.
import { makeBucket, refill, type Bucket } from './rate-limit.ts';

export type PushBuckets = {
  /** Spends one token of each; null when allowed, else the refusal for the machine. */
  take(room: string, ip: string): string | null;
  prune(): void;
};

type Limits = {
  pushRatePerMin: number;
  pushBurst: number;
  pushRatePerMinPerIp: number;
  pushBurstPerIp: number;
  now: () => number;
};

export function makePushBuckets(o: Limits): PushBuckets {
  const rooms = new Map<string, Bucket>();
  const ips = new Map<string, Bucket>();
  const roomRate = o.pushRatePerMin / 60_000;
  const ipRate = o.pushRatePerMinPerIp / 60_000;
  const get = (m: Map<string, Bucket>, key: string, burst: number, now: number) => {
    let b = m.get(key);
    if (!b) m.set(key, (b = makeBucket(burst, now)));
    return b;
  };
  const prune = (m: Map<string, Bucket>, rate: number, burst: number, now: number) => {
    for (const [k, b] of m) if (b.tokens + (now - b.updatedMs) * rate >= burst) m.delete(k);
  };
  return {
    take(room, ip) {
      const now = o.now();
      const r = get(rooms, room, o.pushBurst, now);
      const i = get(ips, ip, o.pushBurstPerIp, now);
      refill(r, now, roomRate, o.pushBurst);
      refill(i, now, ipRate, o.pushBurstPerIp);
      // The machine's push receipts read "push rate limit" as the rate-limited outcome.
      if (r.tokens < 1) return `push rate limit: ${o.pushRatePerMin} per minute per room`;
      if (i.tokens < 1) return `push rate limit: ${o.pushRatePerMinPerIp} per minute per IP`;
      r.tokens -= 1;
      i.tokens -= 1;
      return null;
    },
    prune() {
      const now = o.now();
      prune(rooms, roomRate, o.pushBurst, now);
      prune(ips, ipRate, o.pushBurstPerIp, now);
    },
  };
}
