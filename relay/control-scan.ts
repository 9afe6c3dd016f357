// The hot path's byte checks, in one WebAssembly SIMD module. A JS loop costs 1–2 ns per byte
// (~20 µs for 16 KiB, more than forwarding the frame); SIMD takes 16 bytes per instruction.
// The frame is copied into the module's memory once (loadFrame); then
//   scan(len) recognises the two push-free canonical envelopes in one call:
//     {"kind":"msg","room":"<room>","payload":"<plain>"}            and
//     {"kind":"msg","room":"<room>","payload":"<plain>","push":null}
//   and returns the room's end offset (the room starts at 22), 0 to decline (the parser decides),
//   or -1 when the tail is neither (maybe a push object) or the payload holds a byte below 0x20
//   or above 0x7f: scan.ts's JS path looks, field by field;
//   clean(i, end) checks one string field for that JS path.
// <plain> = printable ASCII (0x20–0x7f; a sealed payload is base64): no quote, no backslash
// (escapes are the parser's job), no control byte (invalid in JSON), and no byte above 0x7f, so
// a frame the scan accepts whose room equals a joined id's bytes is all ASCII and needs no
// separate UTF-8 pass. Per 16 bytes: signed min (a lane below 0x20 is a control byte or, as a
// negative number, a byte >= 0x80), xor with 0x22 (quote → 0, backslash → 0x7e), xor with 0x7e,
// min, min — a zero lane is a quote or a backslash.
// Source, for review (WAT; test-support/assemble-scan.ts assembles it instruction by instruction
// and control-scan.test.ts checks the bytes below are exactly that):
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
//   (func (export "scan") (param $len i32) (result i32)
//     (local $i $roomEnd $pStart $pEnd $bits $b i32) (local $v $ctl $bq $x v128)
//     ;; caller: 40 <= len <= MAX_SCAN_BYTES
//     (if (i32.eqz (i8x16.all_true (i8x16.eq (v128.load offset=0 (i32.const 0))
//                                            (v128.const `{"kind":"msg","r`)))) (return 0))
//     (if (i32.eqz (i8x16.all_true (i8x16.eq (v128.load offset=6 (i32.const 0))
//                                            (v128.const `":"msg","room":"`)))) (return 0))
//     (local.set $i (i32.const 22))
//     (block $found (loop $q            ;; the room's closing quote, 16 bytes per turn
//       (br_if $found (local.tee $bits (i8x16.bitmask (i8x16.eq (v128.load (local.get $i))
//                                                                (i8x16.splat 0x22)))))
//       (br_if $q (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $len)))
//       (return 0)))
//     (local.set $pStart (i32.add (local.tee $roomEnd (i32.add $i (i32.ctz $bits))) (i32.const 13)))
//     (if (i32.gt_u $pStart $len) (return 0))
//     (if (i32.ne (i32.and (i8x16.bitmask (i8x16.eq (v128.load $roomEnd)
//                                                   (v128.const `","payload":"` 0 0 0)))
//                          (i32.const 0x1fff)) (i32.const 0x1fff)) (return 0))
//     (if (i32.and (i32.eq (i32.load8_u (i32.sub $len 1)) 0x7d) (i32.eq (i32.load8_u (i32.sub $len 2)) 0x22))
//       (then (local.set $pEnd (i32.sub $len 2)))              ;; ..."}
//       (else (if (i32.ne (i32.and (i8x16.bitmask (i8x16.eq (v128.load (i32.sub $len 16))
//                                                          (v128.const 0 0 `","push":null}`)))
//                                  (i32.const 0xfffc)) (i32.const 0xfffc)) (return -1))
//             (local.set $pEnd (i32.sub $len 14))))             ;; ...","push":null}
//     (if (i32.lt_u $pEnd $pStart) (return 0))
//     (local.set $i $pStart) (local.set $bq (local.tee $ctl (i8x16.splat 0x7f)))
//     ;; STEP(o) = (local.set $ctl (i8x16.min_s $ctl (local.tee $v (v128.load offset=o $i))))
//     ;;           (local.set $x (v128.xor $v (i8x16.splat 0x22)))
//     ;;           (local.set $bq (i8x16.min_u $bq (i8x16.min_u $x (v128.xor $x (i8x16.splat 0x7e)))))
//     (block (loop (br_if 1 (i32.gt_u (i32.add $i 64) $pEnd))
//       STEP(0) STEP(16) STEP(32) STEP(48) (local.set $i (i32.add $i 64)) (br 0)))
//     (block (loop (br_if 1 (i32.gt_u (i32.add $i 16) $pEnd))
//       STEP(0) (local.set $i (i32.add $i 16)) (br 0)))
//     (block (loop (br_if 1 (i32.ge_u $i $pEnd))            ;; the last 0–15 bytes one by one
//       (if (i32.or (i32.eq (local.tee $b (i32.load8_u $i)) 0x22) (i32.eq $b 0x5c)) (return 0))
//       (local.set $ctl (i8x16.min_s $ctl (i8x16.splat $b)))
//       (local.set $i (i32.add $i 1)) (br 0)))
//     (if (v128.any_true (i8x16.eq $bq (i8x16.splat 0))) (return 0))
//     (if (v128.any_true (i8x16.lt_s $ctl (i8x16.splat 0x20))) (return -1))
//     (local.get $roomEnd))
//   (memory (export "mem") 1)
export const SCANNER_WASM_BASE64 =
  'AGFzbQEAAAABDAJgAn9/AX9gAX8BfwMDAgABBQMBAAEHFgMFY2xlYW4AAARzY2FuAAEDbWVtAgAKpQkC1gIBCnv9DCAgICAgICAgICAgICAgICAhA/0MXFxcXFxcXFxcXFxcXFxcXCEE/QxBQUFBQUFBQUFBQUFBQUFBIQX9DP////////////////////8iBiEHIAH9AAAAIQggAf0AABAhCSAB/QAAICEKIAH9AAAwIQsgASAF/QsAACABIAX9CwAQIAEgBf0LACAgASAF/QsAMAJAA0AgACABTw0BIAD9AAAAIgIgBv13IQYgAiAE/VEgB/13IQcgAP0AABAiAiAG/XchBiACIAT9USAH/XchByAA/QAAICICIAb9dyEGIAIgBP1RIAf9dyEHIAD9AAAwIgIgBv13IQYgAiAE/VEgB/13IQcgAEHAAGohAAwACwsgASAI/QsAACABIAn9CwAQIAEgCv0LACAgASAL/QsAMCAGIAP9JiAH/QwAAAAAAAAAAAAAAAAAAAAA/SP9UP1TRQvKBgIGfwR7QQD9AAAA/Qx7ImtpbmQiOiJtc2ciLCJy/SP9Y0UEQEEADwtBAP0AAAb9DCI6Im1zZyIsInJvb20iOiL9I/1jRQRAQQAPC0EWIQECQANAIAH9AAAA/QwiIiIiIiIiIiIiIiIiIiIi/SP9ZCIFDQEgAUEQaiIBIABJDQBBAA8LCyABIAVoaiICQQ1qIgMgAEsEQEEADwsgAv0AAAD9DCIsInBheWxvYWQiOiIAAAD9I/1kQf8/cUH/P0cEQEEADwsgAEEBay0AAEH9AEYgAEECay0AAEEiRnEEQCAAQQJrIQQFIABBEGv9AAAA/QwAACIsInB1c2giOm51bGx9/SP9ZEH8/wNxQfz/A0cEQEF/DwsgAEEOayEECyAEIANJBEBBAA8LIAMhAf0Mf39/f39/f39/f39/f39/fyIIIQkCQANAIAFBwABqIARLDQEgCCAB/QAAACIH/XYhCCAH/QwiIiIiIiIiIiIiIiIiIiIi/VEhCiAJIAogCv0Mfn5+fn5+fn5+fn5+fn5+fv1R/Xf9dyEJIAggAf0AABAiB/12IQggB/0MIiIiIiIiIiIiIiIiIiIiIv1RIQogCSAKIAr9DH5+fn5+fn5+fn5+fn5+fn79Uf13/XchCSAIIAH9AAAgIgf9diEIIAf9DCIiIiIiIiIiIiIiIiIiIiL9USEKIAkgCiAK/Qx+fn5+fn5+fn5+fn5+fn5+/VH9d/13IQkgCCAB/QAAMCIH/XYhCCAH/QwiIiIiIiIiIiIiIiIiIiIi/VEhCiAJIAogCv0Mfn5+fn5+fn5+fn5+fn5+fv1R/Xf9dyEJIAFBwABqIQEMAAsLAkADQCABQRBqIARLDQEgCCAB/QAAACIH/XYhCCAH/QwiIiIiIiIiIiIiIiIiIiIi/VEhCiAJIAogCv0Mfn5+fn5+fn5+fn5+fn5+fv1R/Xf9dyEJIAFBEGohAQwACwsCQANAIAEgBE8NASABLQAAIgZBIkYgBkHcAEZyBEBBAA8LIAggBv0P/XYhCCABQQFqIQEMAAsLIAn9DAAAAAAAAAAAAAAAAAAAAAD9I/1TBEBBAA8LIAj9DCAgICAgICAgICAgICAgICD9Jf1TBEBBfw8LIAIL';

// @types/node does not declare the WebAssembly global (lib.dom does); this is all we use of it.
type Wasm = {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
const { Module, Instance } = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
const exports = new Instance(new Module(Buffer.from(SCANNER_WASM_BASE64, 'base64'))).exports as {
  clean: (from: number, end: number) => number;
  scan: (len: number) => number;
  mem: { buffer: ArrayBuffer };
};
const mem = new Uint8Array(exports.mem.buffer);
// The module's memory never grows (one page), so one view serves for good. TurboFan compiles
// getInt32 to one unaligned load: a room id compares 4 bytes per step instead of 1.
const view = new DataView(exports.mem.buffer);
const clean = exports.clean;
const scanFn = exports.scan;
/** The largest frame loadFrame takes: one 64 KiB page minus the 64-byte pad. */
export const MAX_SCAN_BYTES = mem.length - 64;
let loaded = 0;

/** Copies the frame into the scanner; false (nothing loaded) when it is over MAX_SCAN_BYTES. */
export function loadFrame(b: Uint8Array): boolean {
  if (b.length > MAX_SCAN_BYTES) {
    loaded = 0;
    return false;
  }
  mem.set(b); // a whole typed array: a plain memcpy, no view to allocate
  loaded = b.length;
  return true;
}

/** Forgets the loaded frame (a frame too short to scan): loadedIdEquals then matches nothing. */
export function unloadFrame(): void {
  loaded = 0;
}

/**
 * scan(len) of the loaded frame: the room's end offset for a push-free canonical msg envelope
 * whose payload is printable ASCII (the room starts at byte 22), 0 to decline, -1 when the tail
 * may hold a push object or the payload a control or non-ASCII byte (look field by field).
 */
export function scanLoaded(): number {
  return scanFn(loaded);
}

/** True when bytes [start, end) of the loaded frame hold no backslash and no byte below 0x20. */
export function isPlain(start: number, end: number): boolean {
  if (end > loaded || start > end) return false;
  return clean(start, end) === 1;
}

/** A room id (ASCII, at least 4 characters) as loadedIdEquals compares it: its length, then its
 * little-endian 32-bit words at 0, 4, 8, … and, last, the word ending at its end (overlapping). */
export function idWords(id: string): number[] {
  const b = Buffer.from(id, 'latin1');
  const words: number[] = [b.length];
  for (let at = 0; at < b.length - 4; at += 4) words.push(b.readInt32LE(at));
  words.push(b.readInt32LE(b.length - 4));
  return words;
}

/**
 * True when bytes [start, start + n) of the loaded frame are the id idWords(id) came from.
 * Several times faster than a byte loop over a Buffer (~15 against ~55 ns for 22 bytes here),
 * which counts when every frame checks its room.
 */
export function loadedIdEquals(start: number, n: number, words: readonly number[]): boolean {
  if (words[0] !== n || n < 4 || start + n > loaded) return false;
  const last = start + n - 4;
  let k = 1;
  for (let at = start; at < last; at += 4) if (view.getInt32(at, true) !== words[k++]) return false;
  return view.getInt32(last, true) === words[k];
}
