// The executor's bulk path to the socket: text frames (RFC 6455 §5.2, opcode 1, FIN) built in
// place in reusable buffers, masked in place with a fresh random key each (§5.3), and written to
// the connection's own socket. Handing ws a Buffer costs two fresh ~87 KB allocations per 64 KiB
// chunk (the frame text, then ws's masked copy, since it may not touch a caller's Buffer); fresh
// memory is what the executor spent most on (page faults, GC), not the copying.
//
// ws keeps sending everything else on the same socket. Both write synchronously in call order
// (no permessage-deflate, no Blobs: ws's sender never queues), so frames never interleave.
import { randomFillSync } from 'node:crypto';
import type { Duplex } from 'node:stream';
import bufferUtil from 'bufferutil';

/** 2 bytes, an 8-byte extended length, the 4-byte masking key: the longest client header. */
const MAX_HEADER_BYTES = 14;
/** A slot fits the largest data chunk frame (64 KiB raw → 87,384 base64 + ~150 of JSON). */
const SLOT_BYTES = 96 * 1024;
/** Free slots kept for reuse; more than this in flight are left to the GC when they return. */
const MAX_FREE_SLOTS = 32;
const OPCODE_TEXT_FIN = 0x81;
const MASK_BIT = 0x80;
const MASK_POOL_BYTES = 4096;

export type FrameWriter = {
  /**
   * Writes one masked text frame whose `length` payload bytes `fill` puts at `buf[at…]`. The
   * payload must be valid UTF-8 (the caller's encoder guarantees it).
   */
  sendText(length: number, fill: (buf: Buffer, at: number) => void): void;
};

export const makeFrameWriter = (socket: Duplex): FrameWriter => {
  const free: Buffer[] = [];
  const masks = Buffer.allocUnsafe(MASK_POOL_BYTES);
  let maskAt = MASK_POOL_BYTES;
  const nextMask = (): Buffer => {
    if (maskAt === MASK_POOL_BYTES) {
      randomFillSync(masks);
      maskAt = 0;
    }
    maskAt += 4;
    return masks.subarray(maskAt - 4, maskAt);
  };
  const release = (slot: Buffer) => {
    if (slot.length === SLOT_BYTES && free.length < MAX_FREE_SLOTS) free.push(slot);
  };

  return {
    sendText(length, fill) {
      const need = MAX_HEADER_BYTES + length;
      const slot =
        need <= SLOT_BYTES
          ? (free.pop() ?? Buffer.allocUnsafeSlow(SLOT_BYTES))
          : Buffer.allocUnsafeSlow(need);
      fill(slot, MAX_HEADER_BYTES);
      const payload = slot.subarray(MAX_HEADER_BYTES, need);
      const mask = nextMask();
      let at: number;
      if (length < 126) {
        at = MAX_HEADER_BYTES - 6;
        slot[at + 1] = MASK_BIT | length;
      } else if (length < 65536) {
        at = MAX_HEADER_BYTES - 8;
        slot[at + 1] = MASK_BIT | 126;
        slot.writeUInt16BE(length, at + 2);
      } else {
        at = 0;
        slot[1] = MASK_BIT | 127;
        slot.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
        slot.writeUInt32BE(length >>> 0, 6);
      }
      slot[at] = OPCODE_TEXT_FIN;
      mask.copy(slot, MAX_HEADER_BYTES - 4);
      bufferUtil.unmask(payload, mask); // XOR in place: masking and unmasking are one operation
      socket.write(slot.subarray(at, need), () => release(slot));
    },
  };
};
