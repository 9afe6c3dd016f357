import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  fromBase64,
  fromBase64Url,
  toBase64,
  toBase64Url,
  utf8ByteLength,
  utf8Decode,
  utf8Encode,
} from './bytes.ts';

const nodeB64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const nodeB64Url = (b: Uint8Array) => Buffer.from(b).toString('base64url');

describe('bytes: base64 as the spec carries it', () => {
  it('Ciphertext on the wire = base64: toBase64 matches Node for any bytes and round-trips', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        expect(toBase64(b)).toBe(nodeB64(b));
        expect(fromBase64(toBase64(b))).toEqual(b);
      }),
    );
  });

  it('Pairing secret is base64url: toBase64Url matches Node (unpadded) and round-trips', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        expect(toBase64Url(b)).toBe(nodeB64Url(b));
        expect(fromBase64Url(toBase64Url(b))).toEqual(b);
      }),
    );
  });

  it.each([
    ['missing padding', 'AA'],
    ['url alphabet', 'a-_A'],
    ['padding inside', 'AA=A'],
    ['three pads', 'A==='],
    ['non-zero unused bits', 'AB=='],
    ['whitespace', 'AAAA AAAA'],
    ['non-ASCII', 'AAA\u00e9'],
  ])('strict base64 refuses %s', (_why, s) => {
    expect(fromBase64(s)).toBeNull();
  });

  it.each([
    ['padding', 'AA=='],
    ['standard alphabet', 'a+/A'],
    ['a dangling digit', 'AAAAA'],
    ['non-zero unused bits', 'AB'],
  ])('strict base64url refuses %s', (_why, s) => {
    expect(fromBase64Url(s)).toBeNull();
  });
});

describe('bytes: UTF-8', () => {
  it('utf8ByteLength equals the encoded length for any string, lone surrogates included', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(
            fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
            fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
          ),
          maxLength: 60,
        }),
        (s) => {
          expect(utf8ByteLength(s)).toBe(utf8Encode(s).length);
        },
      ),
    );
    expect(utf8ByteLength('\ud800x\udc00')).toBe(utf8Encode('\ud800x\udc00').length);
  });

  it('utf8Decode refuses invalid UTF-8 with invalid-utf8', () => {
    const r = utf8Decode(new Uint8Array([0xc3, 0x28]));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('invalid-utf8');
    expect(utf8Decode(utf8Encode('日本😀'))).toEqual({ ok: true, value: '日本😀' });
  });
});
