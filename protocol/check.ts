// Tiny hand-written field checkers for the message parsers (smaller than a schema library in
// the phone's bundle). They throw `Invalid` with the field's name — never its value, because
// parse failures get logged (D12) — and the parsers turn that into a result.
import { isMember } from './closed-sets.ts';
import { MAX_ID_CHARS } from './limits.ts';

export class Invalid extends Error {
  constructor(
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

export type Fields = Record<string, unknown>;

export const isObject = (v: unknown): v is Fields =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function obj(v: unknown, name: string): Fields {
  if (!isObject(v)) throw new Invalid(`${name} must be an object`);
  return v;
}

export function str(o: Fields, key: string, maxChars = Infinity): string {
  const v = o[key];
  if (typeof v !== 'string') throw new Invalid(`${key} must be a string`);
  if (v.length > maxChars) throw new Invalid(`${key} is longer than ${maxChars}`);
  return v;
}

export const optStr = (o: Fields, key: string, maxChars = Infinity): string | undefined =>
  o[key] === undefined ? undefined : str(o, key, maxChars);

/** Ids are opaque, non-empty and bounded. */
export function id(o: Fields, key: string): string {
  const v = str(o, key, MAX_ID_CHARS);
  if (v.length === 0) throw new Invalid(`${key} must not be empty`);
  return v;
}

export const optId = (o: Fields, key: string): string | undefined =>
  o[key] === undefined ? undefined : id(o, key);

/** Unix milliseconds, counts and sequence numbers: non-negative safe integers. */
export function int(o: Fields, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new Invalid(`${key} must be a non-negative integer`);
  }
  return v;
}

export const optInt = (o: Fields, key: string): number | undefined =>
  o[key] === undefined ? undefined : int(o, key);

export function bool(o: Fields, key: string): boolean {
  const v = o[key];
  if (typeof v !== 'boolean') throw new Invalid(`${key} must be true or false`);
  return v;
}

export const optBool = (o: Fields, key: string): boolean | undefined =>
  o[key] === undefined ? undefined : bool(o, key);

export function oneOf<S extends Record<string, string>>(
  o: Fields,
  key: string,
  set: S,
): S[keyof S] {
  const v = o[key];
  if (!isMember(set, v)) throw new Invalid(`${key} must be one of ${Object.keys(set).join(', ')}`);
  return v;
}

export function list<T>(
  o: Fields,
  key: string,
  max: number,
  item: (v: unknown, i: number) => T,
): T[] {
  const v = o[key];
  if (!Array.isArray(v)) throw new Invalid(`${key} must be an array`);
  if (v.length > max) throw new Invalid(`${key} has more than ${max} entries`);
  return v.map((x, i) => {
    try {
      return item(x, i);
    } catch (e) {
      // Say where in the list the bad entry is; the field name inside follows.
      if (e instanceof Invalid) throw new Invalid(`${key}[${i}]: ${e.message}`, e.reason);
      throw e;
    }
  });
}

export function strings(o: Fields, key: string, max: number, maxChars = Infinity): string[] {
  return list(o, key, max, (v) => {
    if (typeof v !== 'string' || v.length > maxChars) {
      throw new Invalid(`must be a string of at most ${maxChars}`);
    }
    return v;
  });
}

export function unique(ids: string[], what: string): void {
  if (new Set(ids).size !== ids.length) throw new Invalid(`${what} must be unique`);
}

/** Copies only the optional fields that are present, so results carry no `undefined` keys. */
export function defined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}
