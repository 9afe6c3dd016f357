// "Does this byte range hold a control character (< 0x20)?" — the one check JSON string
// validity needs beyond the quote and backslash that Buffer.indexOf finds natively. A JS loop
// costs ~1–2 ns per byte (~20 µs for 16 KiB), more than forwarding the frame; this 120-byte
// WebAssembly SIMD function takes the minimum of 64 bytes per turn (~1 µs for 16 KiB, copy
// included). Source, for review (WAT):
//   (func (export "scan") (param $len i32) (result i32) (local $i i32) (local $acc v128)
//     (local.set $acc (v128.const i8x16 255 …))
//     (block (loop
//       (br_if 1 (i32.ge_u (local.get $i) (local.get $len)))
//       (local.set $acc (i8x16.min_u (local.get $acc) (v128.load offset=0 (local.get $i))))
//       … the same for offset=16, offset=32, offset=48 (unrolled: 64 bytes per turn)
//       (local.set $i (i32.add (local.get $i) (i32.const 64))) (br 0)))
//     (i32.eqz (v128.any_true (i8x16.lt_u (local.get $acc) (v128.const i8x16 32 …)))))
//   (memory (export "mem") 1)
const WASM_BASE64 =
  'AGFzbQEAAAABBgFgAX8BfwMCAQAFAwEAAQcOAgRzY2FuAAADbWVtAgAKfAF6AgF/AXv9DP////////////////////8hAgJAA0AgASAATw0BIAIgAf0AAAD9dyECIAIgAf0AABD9dyECIAIgAf0AACD9dyECIAIgAf0AADD9dyECIAFBwABqIQEMAAsLIAL9DCAgICAgICAgICAgICAgICD9Jv1TRQs=';

// @types/node does not declare the WebAssembly global (lib.dom does); this is all we use of it.
type Wasm = {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
const { Module, Instance } = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
const exports = new Instance(new Module(Buffer.from(WASM_BASE64, 'base64'))).exports as {
  scan: (len: number) => number;
  mem: { buffer: ArrayBuffer };
};
const mem = new Uint8Array(exports.mem.buffer);
const FILL = 0x41; // 'A': pads the last 64-byte block with a harmless byte

/** True when b[start, end) holds no byte below 0x20. */
export function hasNoControlBytes(b: Buffer, start: number, end: number): boolean {
  const n = end - start;
  if (n <= 0) return true;
  if (n > mem.length - 64) return false; // larger than any frame the relay accepts: decline
  mem.set(new Uint8Array(b.buffer, b.byteOffset + start, n)); // a plain view: cheaper than subarray
  const padded = (n + 63) & ~63;
  mem.fill(FILL, n, padded);
  return exports.scan(padded) === 1;
}
