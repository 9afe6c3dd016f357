// Small field checkers shared by the parsers. Each returns a problem text or null, so a parser
// can name the exact field in its bad_shape message.
import { isCanonicalBase64 } from './base64.ts';

export type Obj = Record<string, unknown>;
export const isObject = (v: unknown): v is Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Canonical decimal of a u64: no sign, no leading zero, no exponent, no whitespace. */
const GEN_PATTERN = /^(?:0|[1-9][0-9]{0,19})$/;
export const isCanonicalGen = (v: unknown): v is string =>
  typeof v === 'string' && GEN_PATTERN.test(v) && BigInt(v) <= 0xffffffffffffffffn;

export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;

export const isSafeInt = (v: unknown, min = Number.MIN_SAFE_INTEGER): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min;
export const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
export const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Collects the first problem; `need` returns false so callers can bail out early. */
export const makeShapeCheck = () => {
  let problem: string | null = null;
  const need = (cond: boolean, what: string): boolean => {
    if (!cond && problem === null) problem = what;
    return cond;
  };
  return {
    need,
    get problem() {
      return problem;
    },
    str: (o: Obj, k: string, opt = false) =>
      (opt && o[k] === undefined) || need(typeof o[k] === 'string', `${k} must be a string`),
    nonEmpty: (o: Obj, k: string) =>
      need(isNonEmptyString(o[k]), `${k} must be a non-empty string`),
    int: (o: Obj, k: string, min: number, opt = false) =>
      (opt && o[k] === undefined) ||
      need(isSafeInt(o[k], min), `${k} must be a safe integer ≥ ${min}`),
    gen: (o: Obj) => need(isCanonicalGen(o.gen), 'gen must be a canonical decimal string'),
    bool: (o: Obj, k: string, opt = false) =>
      (opt && o[k] === undefined) || need(typeof o[k] === 'boolean', `${k} must be a boolean`),
    b64: (o: Obj, k: string, opt = false) =>
      (opt && o[k] === undefined) || need(isCanonicalBase64(o[k]), `${k} must be canonical base64`),
  };
};
