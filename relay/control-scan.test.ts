// The hand-assembled SIMD scanner of the hot path: its bytes are the WAT in control-scan.ts's
// comment, and it agrees with the obvious JS loop, whatever lies before, inside or after a field.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLEAN_WASM_BASE64, isPlain, loadFrame, MAX_SCAN_BYTES } from './control-scan.ts';

// A tiny assembler for exactly the WAT in control-scan.ts (opcodes from the WebAssembly spec).
function assembleClean(): Buffer {
  const leb = (n: number) => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n !== 0) b |= 0x80;
      out.push(b);
    } while (n !== 0);
    return out;
  };
  const [I, END, V, C20, C5C, CA, LOW, BS, S0] = [0, 1, 2, 3, 4, 5, 6, 7, 8] as const;
  const get = (i: number) => [0x20, i];
  const set = (i: number) => [0x21, i];
  const tee = (i: number) => [0x22, i];
  const splat = (byte: number) => [0xfd, 0x0c, ...Array<number>(16).fill(byte)];
  const load = (offset: number) => [0xfd, 0x00, 0x00, offset];
  const store = (offset: number) => [0xfd, 0x0b, 0x00, offset];
  const [MIN_U, XOR, LT_U, EQ, OR, ANY_TRUE] = [0x77, 0x51, 0x26, 0x23, 0x50, 0x53].map((op) => [
    0xfd,
    op,
  ]) as number[][];
  const quarters = (f: (offset: number, k: number) => number[]) =>
    [0, 16, 32, 48].flatMap((o, k) => f(o, k));
  const body = [
    ...splat(0x20), ...set(C20), ...splat(0x5c), ...set(C5C), ...splat(0x41), ...set(CA),
    ...splat(0xff), ...tee(LOW), ...set(BS),
    ...quarters((o, k) => [...get(END), ...load(o), ...set(S0 + k)]),
    ...quarters((o) => [...get(END), ...get(CA), ...store(o)]),
    0x02, 0x40, 0x03, 0x40, // block, loop
    ...get(I), ...get(END), 0x4f, 0x0d, 0x01, // br_if 1 (i >= end)
    ...quarters((o) => [
      ...get(I), ...load(o), ...tee(V), ...get(LOW), ...MIN_U!, ...set(LOW),
      ...get(V), ...get(C5C), ...XOR!, ...get(BS), ...MIN_U!, ...set(BS),
    ]),
    ...get(I), 0x41, 0xc0, 0x00, 0x6a, ...set(I), 0x0c, 0x00, // i += 64; br 0
    0x0b, 0x0b,
    ...quarters((o, k) => [...get(END), ...get(S0 + k), ...store(o)]),
    ...get(LOW), ...get(C20), ...LT_U!, ...get(BS), ...splat(0), ...EQ!, ...OR!, ...ANY_TRUE!,
    0x45, // i32.eqz
    0x0b,
  ]; // prettier-ignore
  const func = [0x01, 0x0a, 0x7b, ...body]; // one group of locals: 10 × v128
  const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
  const name = (s: string) => [s.length, ...Buffer.from(s)];
  return Buffer.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f]), // (i32, i32) -> i32
    ...section(3, [0x01, 0x00]),
    ...section(5, [0x01, 0x00, 0x01]), // one page
    ...section(7, [0x02, ...name('clean'), 0x00, 0x00, ...name('mem'), 0x02, 0x00]),
    ...section(10, [0x01, ...leb(func.length), ...func]),
  ]);
}

const plainRef = (b: Uint8Array, start: number, end: number) =>
  b.subarray(start, end).every((x) => x >= 0x20 && x !== 0x5c);

describe('control-scan: the SIMD plain-string check', () => {
  it('is exactly the WAT in its comment', () => {
    expect(assembleClean().toString('base64')).toBe(CLEAN_WASM_BASE64);
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
});
