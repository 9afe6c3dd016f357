// H10: everything the phone keeps per machine is bounded. Records here are plain objects (they
// are cloned into IndexedDB as they are); string keys keep insertion order, so "re-insert at the
// end" makes the first key the least recently used one.

/** Sets `key` as the most recently used entry and drops the least recently used beyond `max`. */
export function touch<T>(
  record: Record<string, T>,
  key: string,
  value: T,
  max: number,
): Record<string, T> {
  const { [key]: _old, ...rest } = record;
  const next: Record<string, T> = { ...rest, [key]: value };
  return capRecord(next, max);
}

/** Keeps the last `max` keys in insertion order. */
export function capRecord<T>(record: Record<string, T>, max: number): Record<string, T> {
  const keys = Object.keys(record);
  if (keys.length <= max) return record;
  return Object.fromEntries(keys.slice(keys.length - max).map((k) => [k, record[k]!]));
}

export function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  if (!(key in record)) return record;
  const { [key]: _gone, ...rest } = record;
  return rest;
}
