// E1: every card says how old it is ("2 min ago") and, when the machine gives `expiresAt`, how
// long it has left. Both are machine times (unix ms of the machine's clock), so they are compared
// with the machine's clock as the phone knows it (D11 offset), not with the phone's own clock.
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export type AgeText = { key: 'age.now' | 'age.min' | 'age.hour' | 'age.day'; n: number };
export type LeftText = { key: 'left.soon' | 'left.min' | 'left.hour' | 'left.over'; n: number };

export function ageText(createdAt: number, machineNow: number): AgeText {
  const ms = Math.max(0, machineNow - createdAt);
  if (ms < MINUTE_MS) return { key: 'age.now', n: 0 };
  if (ms < HOUR_MS) return { key: 'age.min', n: Math.floor(ms / MINUTE_MS) };
  if (ms < DAY_MS) return { key: 'age.hour', n: Math.floor(ms / HOUR_MS) };
  return { key: 'age.day', n: Math.floor(ms / DAY_MS) };
}

/** Rounded up: "expires in 1 min" until the last minute, never "in 0 min". */
export function leftText(expiresAt: number, machineNow: number): LeftText {
  const ms = expiresAt - machineNow;
  if (ms <= 0) return { key: 'left.over', n: 0 };
  if (ms < MINUTE_MS) return { key: 'left.soon', n: 0 };
  if (ms < HOUR_MS) return { key: 'left.min', n: Math.ceil(ms / MINUTE_MS) };
  return { key: 'left.hour', n: Math.ceil(ms / HOUR_MS) };
}
