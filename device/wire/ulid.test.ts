import { describe, expect, it } from 'vitest';
import { buildHelloSignaturePayload } from './hello-payload.ts';
import {
  decodeUlid16,
  encodeUlid16,
  isDeviceId,
  isInstructionId,
  mintDeviceId,
  mintEpoch,
  mintInstructionId,
  mintUlid,
} from './ulid.ts';

const VALID = '01J8ZQ4T9X7M3K5N6P8R0S2V4W';
const fields = (epoch: string) => ({ nonce: 'n', deviceId: 'dev_x', epoch, protocolVersion: 1 });
const throwsEpoch = (epoch: string) =>
  expect(() => buildHelloSignaturePayload(fields(epoch))).toThrow(
    `device-ws: epoch must be a 26-char Crockford ULID (got "${epoch}")`,
  );

describe('§1.3 epoch table: decodeUlid16 and buildHelloSignaturePayload', () => {
  it('valid ULID → 16 bytes / payload', () => {
    expect(Buffer.from(decodeUlid16(VALID) as Uint8Array).toString('hex')).toBe(
      '01923f72693d3d0732d4d64601916c9c',
    );
    expect(buildHelloSignaturePayload(fields(VALID)).length).toBeGreaterThan(16);
  });

  it('lower-case → null / throws', () => {
    const lower = VALID.toLowerCase();
    expect(decodeUlid16(lower)).toBeNull();
    throwsEpoch(lower);
    // one lower-case letter is enough
    const oneLower = '01j8ZQ4T9X7M3K5N6P8R0S2V4W';
    expect(decodeUlid16(oneLower)).toBeNull();
    throwsEpoch(oneLower);
  });

  it('first character 8, 9, A … Z (128-bit overflow) → null / throws', () => {
    for (const first of '89ABCDEFGHJKMNPQRSTVWXYZ') {
      const s = first + VALID.slice(1);
      expect(decodeUlid16(s), s).toBeNull();
      throwsEpoch(s);
    }
    for (const first of '01234567') expect(decodeUlid16(first + VALID.slice(1))).not.toBeNull();
  });

  it('25 or 27 characters → null / throws', () => {
    for (const s of [VALID.slice(0, 25), VALID + '0', '']) {
      expect(decodeUlid16(s)).toBeNull();
      throwsEpoch(s);
    }
  });

  it('an excluded letter I, L, O, U → null / throws', () => {
    for (const bad of 'ILOU') {
      const s = VALID.slice(0, 10) + bad + VALID.slice(11);
      expect(decodeUlid16(s), s).toBeNull();
      throwsEpoch(s);
    }
  });

  it('discriminating case: Z last is accepted (value 31), Z first is rejected (overflow)', () => {
    const zLast = VALID.slice(0, 25) + 'Z';
    const zFirst = 'Z' + VALID.slice(1);
    const bytes = decodeUlid16(zLast);
    expect(bytes).not.toBeNull();
    expect((bytes as Uint8Array)[15]! & 31).toBe(31);
    expect(decodeUlid16(zFirst)).toBeNull();
    expect(decodeUlid16('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toEqual(new Uint8Array(16).fill(255));
  });
});

describe('ULID minting', () => {
  it('mints strict ULIDs that round-trip and carry the time', () => {
    const u = mintUlid(1_700_000_000_000);
    expect(decodeUlid16(u)).not.toBeNull();
    expect(encodeUlid16(decodeUlid16(u) as Uint8Array)).toBe(u);
    const t = Buffer.from((decodeUlid16(u) as Uint8Array).subarray(0, 6)).readUIntBE(0, 6);
    expect(t).toBe(1_700_000_000_000);
  });

  it('dev_ / ins_ ids and epochs are well formed and unique', () => {
    const ids = new Set(Array.from({ length: 200 }, () => mintInstructionId()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(isInstructionId(id)).toBe(true);
    expect(isDeviceId(mintDeviceId())).toBe(true);
    expect(isDeviceId(mintInstructionId())).toBe(false);
    expect(decodeUlid16(mintEpoch())).not.toBeNull();
  });

  it('refuses a time outside 48 bits', () => {
    expect(() => mintUlid(2 ** 48)).toThrow(/out of range/);
    expect(() => mintUlid(-1)).toThrow(/out of range/);
  });
});
