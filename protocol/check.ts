// Tiny hand-written field checkers for the message parsers (smaller than a schema library in
// the phone's bundle). They throw `Invalid` with the field's name — never its value, because
// parse failures get logged (D12) — and the parsers turn that into a result.
import { utf8ByteLength } from './bytes.ts';
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

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** A string bounded in code points (`chars`) and/or UTF-8 bytes, as senders clamp them. */
export function text(o: Fields, key: string, limits: { chars?: number; bytes?: number }): string {
  const v = str(o, key);
  const { chars, bytes } = limits;
  // A UTF-16 length within the limit is within it in code points too: count only when needed.
  if (chars !== undefined && v.length > chars && codePoints(v) > chars) {
    throw new Invalid(`${key} is longer than ${chars} characters`);
  }
  if (bytes !== undefined && utf8ByteLength(v) > bytes) {
    throw new Invalid(`${key} is larger than ${bytes} bytes`);
  }
  return v;
}

export const optText = (
  o: Fields,
  key: string,
  limits: { chars?: number; bytes?: number },
): string | undefined => (o[key] === undefined ? undefined : text(o, key, limits));

/** A name shown to people and printed in terminals: not blank, bounded, no control characters. */
export function displayName(o: Fields, key: string, maxChars: number): string {
  const v = text(o, key, { chars: maxChars });
  if (v.trim().length === 0) throw new Invalid(`${key} must not be blank`);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(v)) throw new Invalid(`${key} has control characters`);
  return v;
}

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

/** A flag whose only value is `true` (absent = false); `false` or anything else is invalid. */
export function optTrue(o: Fields, key: string): true | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (v !== true) throw new Invalid(`${key} must be true when present`);
  return true;
}

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

/** A bounded list whose entries each carry an id that must not repeat (`what` names the ids). */
export function uniqueList<T>(
  o: Fields,
  key: string,
  max: number,
  item: (v: unknown) => T,
  idOf: (t: T) => string,
  what: string,
): T[] {
  const out = list(o, key, max, item);
  unique(out.map(idOf), what);
  return out;
}

/** Copies only the optional fields that are present, so results carry no `undefined` keys. */
export function defined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}
