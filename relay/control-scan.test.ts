// The hand-assembled SIMD scanner of the hot path: its bytes are the WAT in control-scan.ts's
// comment, and clean() agrees with the obvious JS loop, whatever lies before, inside or after a
// field. scan() is checked against protocol's parser through scanMsg in scan.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  idWords,
  isPlain,
  loadedIdEquals,
  loadFrame,
  MAX_SCAN_BYTES,
  SCANNER_WASM_BASE64,
  unloadFrame,
} from './control-scan.ts';
import { assembleScanner } from './test-support/assemble-scan.ts';

const plainRef = (b: Uint8Array, start: number, end: number) =>
  b.subarray(start, end).every((x) => x >= 0x20 && x !== 0x5c);

describe('control-scan: the SIMD plain-string check', () => {
  it('is exactly the WAT in its comment', () => {
    expect(assembleScanner().toString('base64')).toBe(SCANNER_WASM_BASE64);
  });

  it('agrees with a JS loop for every field of a frame, checked in any order (property)', () => {
    const byte = fc.oneof(
      { weight: 30, arbitrary: fc.integer({ min: 0x20, max: 0xff }) },
      { weight: 1, arbitrary: fc.constantFrom(0x00, 0x0a, 0x1f, 0x22, 0x5c) },
    );
    fc.assert(
      fc.property(
        fc
          .uint8Array({ maxLength: 400 })
          .chain((a) =>
            fc.tuple(
              fc.array(byte, { minLength: a.length, maxLength: a.length }),
              fc.array(fc.tuple(fc.nat(400), fc.nat(400)), { minLength: 1, maxLength: 6 }),
            ),
          ),
        ([bytes, ranges]) => {
          const frame = Uint8Array.from(bytes);
          expect(loadFrame(frame)).toBe(true);
          for (const [x, y] of ranges) {
            const [start, end] = [
              Math.min(x, y, frame.length),
              Math.min(Math.max(x, y), frame.length),
            ];
            expect(isPlain(start, end)).toBe(plainRef(frame, start, end));
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('sees a control byte or backslash right after a field it checked before', () => {
    for (const bad of [0x00, 0x1f, 0x5c]) {
      const frame = new Uint8Array(300).fill(0x41);
      frame[100] = bad;
      expect(loadFrame(frame)).toBe(true);
      expect(isPlain(10, 99)).toBe(true); // pads (and restores) the 64 bytes from 99
      expect(isPlain(100, 200)).toBe(false);
      expect(isPlain(95, 101)).toBe(false);
    }
  });

  it('declines frames larger than its memory, and ranges outside the loaded frame', () => {
    expect(loadFrame(new Uint8Array(MAX_SCAN_BYTES + 1))).toBe(false);
    expect(loadFrame(new Uint8Array(MAX_SCAN_BYTES).fill(0x41))).toBe(true);
    expect(isPlain(0, MAX_SCAN_BYTES)).toBe(true);
    expect(isPlain(0, MAX_SCAN_BYTES + 1)).toBe(false);
  });

  it('loadedIdEquals agrees with a byte-by-byte comparison, at any offset and length (property)', () => {
    const id = fc.stringMatching(/^[A-Za-z0-9_-]{8,130}$/);
    fc.assert(
      fc.property(
        id,
        fc.nat(300),
        fc.uint8Array({ maxLength: 400 }),
        fc.option(fc.tuple(fc.nat(200), fc.integer({ min: -2, max: 2 }), fc.nat(255))),
        (room, at, noise, plant) => {
          // A frame holding the id (or a near miss: one byte changed, or another length).
          const frame = Buffer.concat([Buffer.from(noise), Buffer.alloc(at + 200)]);
          const start = Math.min(at, frame.length);
          const bytes = Buffer.from(room, 'latin1');
          bytes.copy(frame, start);
          const n = plant === null ? room.length : Math.max(0, room.length + plant[1]);
          if (plant !== null && plant[1] === 0) frame[start + (plant[0] % room.length)] = plant[2];
          expect(loadFrame(frame)).toBe(true);
          const same =
            n === room.length &&
            start + n <= frame.length &&
            frame.subarray(start, start + n).equals(bytes);
          expect(loadedIdEquals(start, n, idWords(room))).toBe(same);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('loadedIdEquals matches nothing once the frame is unloaded or too large to load', () => {
    const room = 'AbCdEfGh_-12345678901A';
    const frame = Buffer.from(`{"kind":"msg","room":"${room}"}`);
    expect(loadFrame(frame)).toBe(true);
    expect(loadedIdEquals(22, room.length, idWords(room))).toBe(true);
    unloadFrame();
    expect(loadedIdEquals(22, room.length, idWords(room))).toBe(false);
    expect(loadFrame(frame)).toBe(true);
    expect(loadFrame(new Uint8Array(MAX_SCAN_BYTES + 1))).toBe(false);
    expect(loadedIdEquals(22, room.length, idWords(room))).toBe(false);
  });
});
