// Reconnect delays (spec "Heartbeat"): exponential 0.5 s → 30 s with full jitter. The phone
// retries forever; the machine shows a visible error state after 10 consecutive failures and
// then retries every 60 s. Pure: the caller owns the attempt counter, the clock and the random.

export type BackoffProfile = {
  readonly baseMs: number;
  readonly maxMs: number;
  /** Consecutive failures after which the caller shows an error state; null = never. */
  readonly failuresBeforeErrorState: number | null;
  /** The fixed delay once in the error state. */
  readonly errorStateRetryMs: number;
};

export const PHONE_BACKOFF: BackoffProfile = {
  baseMs: 500,
  maxMs: 30_000,
  failuresBeforeErrorState: null,
  errorStateRetryMs: 30_000,
};

export const MACHINE_BACKOFF: BackoffProfile = {
  baseMs: 500,
  maxMs: 30_000,
  failuresBeforeErrorState: 10,
  errorStateRetryMs: 60_000,
};

/** `attempt` = consecutive failures so far (1 after the first failure). */
export const isErrorState = (attempt: number, profile: BackoffProfile): boolean =>
  profile.failuresBeforeErrorState !== null && attempt >= profile.failuresBeforeErrorState;

/**
 * Milliseconds to wait before the next try after `attempt` consecutive failures (≤ 0 = none
 * yet: 0 ms). Full jitter: uniform in [0, min(maxMs, baseMs · 2^(attempt−1))].
 * `random` returns [0, 1) like Math.random.
 */
export function backoffDelayMs(
  attempt: number,
  random: () => number,
  profile: BackoffProfile,
): number {
  if (!(attempt >= 1)) return 0;
  if (isErrorState(attempt, profile)) return profile.errorStateRetryMs;
  const ceiling = Math.min(profile.maxMs, profile.baseMs * 2 ** Math.min(attempt - 1, 52));
  // A broken random source must not produce NaN or negative sleeps.
  const x = random();
  const r = Number.isFinite(x) ? Math.min(Math.max(x, 0), 1) : 0;
  return Math.floor(r * ceiling);
}
