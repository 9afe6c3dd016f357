import { randomBytes } from 'node:crypto';

// Crockford base32 as this protocol uses it (§1.3): upper case only, first character 0–7 (a
// larger one overflows 128 bits). Strict on purpose: the epoch string is also a fencing key, so
// two spellings of one ULID must never both be accepted.
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const VALUE: Record<string, number> = Object.fromEntries(
  [...CROCKFORD_ALPHABET].map((c, i) => [c, i]),
);
export const ULID_CHARS = 26;
const ULID_PATTERN = /^[0-7][0-9ABCDEFGHJKMNPQRSTVWXYZ]{25}$/;

export const isUlid = (s: unknown): s is string => typeof s === 'string' && ULID_PATTERN.test(s);

/** The ULID's 128 bits, most significant byte first; null for anything not strictly a ULID. */
export const decodeUlid16 = (s: string): Uint8Array | null => {
  if (!isUlid(s)) return null;
  let n = 0n;
  for (const c of s) n = (n << 5n) | BigInt(VALUE[c] as number);
  const out = new Uint8Array(16);
  for (let i = 15; i >= 0; i--) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
};

/** Encodes 16 bytes as a 26-char ULID (inverse of decodeUlid16). */
export const encodeUlid16 = (bytes: Uint8Array): string => {
  if (bytes.length !== 16) throw new Error('device-wire: a ULID is exactly 16 bytes');
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let s = '';
  for (let i = 0; i < ULID_CHARS; i++) {
    s = CROCKFORD_ALPHABET[Number(n & 31n)] + s;
    n >>= 5n;
  }
  return s;
};

/** 48-bit millisecond time + 80 random bits. */
export const mintUlid = (
  nowMs: number = Date.now(),
  random: (n: number) => Uint8Array = randomBytes,
): string => {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0 || nowMs >= 2 ** 48) {
    throw new Error(`device-wire: ULID time out of range (${nowMs})`);
  }
  const bytes = new Uint8Array(16);
  let t = nowMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  bytes.set(random(10).subarray(0, 10), 6);
  return encodeUlid16(bytes);
};

export const DEVICE_ID_PATTERN = /^dev_[0-7][0-9ABCDEFGHJKMNPQRSTVWXYZ]{25}$/;
export const INSTRUCTION_ID_PATTERN = /^ins_[0-7][0-9ABCDEFGHJKMNPQRSTVWXYZ]{25}$/;

export const mintDeviceId = (nowMs?: number): string => `dev_${mintUlid(nowMs)}`;
export const mintInstructionId = (nowMs?: number): string => `ins_${mintUlid(nowMs)}`;
/** A fresh epoch per executor process start (§2.2). */
export const mintEpoch = (nowMs?: number): string => mintUlid(nowMs);

export const isDeviceId = (s: unknown): s is string =>
  typeof s === 'string' && DEVICE_ID_PATTERN.test(s);
export const isInstructionId = (s: unknown): s is string =>
  typeof s === 'string' && INSTRUCTION_ID_PATTERN.test(s);
