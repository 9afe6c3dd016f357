// The benches' figures: percentiles of a sample (nearest rank) and how they are printed.

export const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
/** The nearest-rank `q` percentile of an ascending sample. */
export const pct = (ascending: number[], q: number) =>
  ascending[Math.min(ascending.length - 1, Math.ceil(q * ascending.length) - 1)]!;
export const fmt = (n: number) => n.toFixed(1);
export const p50p95 = (xs: number[]) =>
  `${fmt(pct(sorted(xs), 0.5))} / ${fmt(pct(sorted(xs), 0.95))}`;
