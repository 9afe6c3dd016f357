// "Is this JSON string body plain?" — no backslash (an escape: the parser handles those) and no
// control byte (< 0x20, invalid in JSON), the two checks a string needs beyond its closing quote,
// which Buffer#indexOf finds natively. A JS loop costs 1–2 ns per byte (~20 µs for 16 KiB),
// more than forwarding the frame; this WebAssembly SIMD function does both checks in one pass of
// three instructions per 16 bytes (min, xor, min). The frame is copied into the module's memory
// once (loadFrame) and then checked field by field (isPlain), so a field costs no allocation.
// Source, for review (WAT; control-scan.test.ts assembles it and compares the bytes below):
//   (func (export "clean") (param $i i32) (param $end i32) (result i32)
//     (local $v v128) (local $c20 v128) (local $c5c v128) (local $cA v128)
//     (local $low v128) (local $bs v128) (local $s0 v128) … (local $s3 v128)
//     (local.set $c20 (v128.const i8x16 0x20 …)) (local.set $c5c (v128.const i8x16 0x5c …))
//     (local.set $cA (v128.const i8x16 0x41 …))
//     (local.set $bs (local.tee $low (v128.const i8x16 0xff …)))
//     ;; 64 bytes of 'A' after the end, so the last whole vectors never see the bytes after
//     ;; the field; the frame's own bytes there are saved and put back before returning
//     (local.set $s0 (v128.load offset=0 (local.get $end))) … $s1..$s3 at offset=16, 32, 48
//     (v128.store offset=0 (local.get $end) (local.get $cA)) … offset=16, 32, 48
//     (block (loop
//       (br_if 1 (i32.ge_u (local.get $i) (local.get $end)))
//       ;; the same for offset=16, 32, 48 (unrolled: 64 bytes per turn)
//       (local.set $low (i8x16.min_u (local.tee $v (v128.load offset=0 (local.get $i)))
//                                    (local.get $low)))
//       (local.set $bs (i8x16.min_u (v128.xor (local.get $v) (local.get $c5c)) (local.get $bs)))
//       (local.set $i (i32.add (local.get $i) (i32.const 64))) (br 0)))
//     (v128.store offset=0 (local.get $end) (local.get $s0)) … $s1..$s3 at offset=16, 32, 48
//     ;; plain: every byte >= 0x20 and none equal to 0x5c (its xor with 0x5c is never 0)
//     (i32.eqz (v128.any_true (v128.or (i8x16.lt_u (local.get $low) (local.get $c20))
//                                      (i8x16.eq (local.get $bs) (v128.const i8x16 0 …))))))
//   (memory (export "mem") 1)
export const CLEAN_WASM_BASE64 =
  'AGFzbQEAAAABBwFgAn9/AX8DAgEABQMBAAEHDwIFY2xlYW4AAANtZW0CAArZAgHWAgEKe/0MICAgICAgICAgICAgICAgICED/QxcXFxcXFxcXFxcXFxcXFxcIQT9DEFBQUFBQUFBQUFBQUFBQUEhBf0M/////////////////////yIGIQcgAf0AAAAhCCAB/QAAECEJIAH9AAAgIQogAf0AADAhCyABIAX9CwAAIAEgBf0LABAgASAF/QsAICABIAX9CwAwAkADQCAAIAFPDQEgAP0AAAAiAiAG/XchBiACIAT9USAH/XchByAA/QAAECICIAb9dyEGIAIgBP1RIAf9dyEHIAD9AAAgIgIgBv13IQYgAiAE/VEgB/13IQcgAP0AADAiAiAG/XchBiACIAT9USAH/XchByAAQcAAaiEADAALCyABIAj9CwAAIAEgCf0LABAgASAK/QsAICABIAv9CwAwIAYgA/0mIAf9DAAAAAAAAAAAAAAAAAAAAAD9I/1Q/VNFCw==';

// @types/node does not declare the WebAssembly global (lib.dom does); this is all we use of it.
type Wasm = {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
const { Module, Instance } = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
const exports = new Instance(new Module(Buffer.from(CLEAN_WASM_BASE64, 'base64'))).exports as {
  clean: (from: number, end: number) => number;
  mem: { buffer: ArrayBuffer };
};
const mem = new Uint8Array(exports.mem.buffer);
const clean = exports.clean;
/** The largest frame loadFrame takes: one 64 KiB page minus the 64-byte pad. */
export const MAX_SCAN_BYTES = mem.length - 64;
let loaded = 0;

/** Copies the frame into the scanner; false (nothing loaded) when it is over MAX_SCAN_BYTES. */
export function loadFrame(b: Uint8Array): boolean {
  if (b.length > MAX_SCAN_BYTES) return false;
  mem.set(b); // a whole typed array: a plain memcpy, no view to allocate
  loaded = b.length;
  return true;
}

/** True when bytes [start, end) of the loaded frame hold no backslash and no byte below 0x20. */
export function isPlain(start: number, end: number): boolean {
  if (end > loaded || start > end) return false;
  return clean(start, end) === 1;
}
