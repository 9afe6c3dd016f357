// §1.4/§7: reconnect 1 s → 60 s, exponential, jittered (so a fleet does not reconnect in step).
export const reconnectDelayMs = (
  attempt: number,
  random: () => number,
  minMs: number,
  maxMs: number,
): number => {
  const base = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  return Math.round(Math.min(maxMs, base * (1 + 0.5 * random())));
};
