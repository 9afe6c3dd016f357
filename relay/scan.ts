import { isPlain, loadFrame, scanLoaded, unloadFrame } from './control-scan.ts';

// Hot path (RL7): recognise the canonical `msg` envelope that our own clients write
//   {"kind":"msg","room":"<id>","payload":"<b64>"[,"push":null|{"payload":"<b64>"[,"tag":"<t>"]}]}
// by a byte scan instead of JSON.parse, so the frame can be forwarded as the very bytes that
// came in. Anything that does not match exactly (other key order, whitespace, escapes, other
// fields) returns null and goes through protocol's parseClientFrame: the scanner may refuse a
// valid frame, but it must never accept one that parseClientFrame would refuse — given that the
// caller accepts the room only when its bytes equal a valid room id (a joined room, compared byte
// for byte).
export type ScannedMsg = {
  /** The room id's bytes are b[roomStart, roomEnd) — not validated: compare them with a joined room's bytes. */
  roomStart: number;
  roomEnd: number;
  /** Byte offset of `,"push":{…}` when a push hint is present, else -1. */
  pushStart: number;
  pushPayload: string | null;
  pushTag: string | null;
};

/** The room as a string (allocates; the relay's hot path compares bytes instead). */
export const roomOf = (b: Buffer, m: ScannedMsg): string =>
  b.toString('latin1', m.roomStart, m.roomEnd);

const PREFIX = Buffer.from('{"kind":"msg","room":"');
const PAYLOAD_KEY = Buffer.from('","payload":"');
const PUSH_NULL = Buffer.from(',"push":null}');
const PUSH_OBJ = Buffer.from(',"push":{"payload":"');
const TAG_KEY = Buffer.from(',"tag":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BRACE_CLOSE = 0x7d;
const MIN_MSG_BYTES = 40;

// A JS loop over typed arrays: ~30 ns for the 22-byte prefix, where Buffer#compare with offsets
// spends ~150 ns validating its arguments.
function startsAt(b: Uint8Array, at: number, lit: Uint8Array): boolean {
  const n = lit.length;
  if (b.length - at < n) return false;
  for (let i = 0; i < n; i++) if (b[at + i] !== lit[i]) return false;
  return true;
}

/**
 * A JSON string body starting at `start` with no escapes and no control characters; returns
 * the index of its closing quote or -1. The quote is found by native memchr, backslashes and
 * control bytes by one SIMD pass over the frame loadFrame copied; non-ASCII is fine (the whole
 * frame was UTF-8-validated already).
 */
function plainStringEnd(b: Buffer, start: number): number {
  const end = b.indexOf(QUOTE, start);
  return end !== -1 && isPlain(start, end) ? end : -1;
}

// One result object, reused: the relay handles one frame at a time and reads it at once.
const result: ScannedMsg = {
  roomStart: 0,
  roomEnd: 0,
  pushStart: -1,
  pushPayload: null,
  pushTag: null,
};

/** Where the room id starts in a canonical envelope. */
export const ROOM_START = PREFIX.length;

/**
 * The push-free envelopes (almost every frame) in one WebAssembly call: the room's end offset
 * (room at [ROOM_START, end)) when `b` is `{"kind":"msg","room":"…","payload":"<printable
 * ASCII, no quote or backslash>"}` (or `…,"push":null}`), 0 when it is no canonical msg, -1 when
 * only scanMsgAfter can tell. Needs no UTF-8 check first: an accepted frame whose room bytes
 * equal a valid room id's is all ASCII. Leaves the frame loaded for scanMsgAfter.
 */
export function scanFast(b: Buffer): number {
  if (b.length < MIN_MSG_BYTES) {
    unloadFrame();
    return 0;
  }
  if (!loadFrame(b)) return 0;
  return scanLoaded();
}

/** Returns the (reused) scan of a canonical msg envelope, or null to take the slow path. The
 * frame must be valid UTF-8. */
export function scanMsg(b: Buffer): ScannedMsg | null {
  return scanMsgAfter(b, scanFast(b));
}

/** scanMsg, given scanFast(b) just before (the frame still loaded); b must be valid UTF-8. */
export function scanMsgAfter(b: Buffer, roomEnd: number): ScannedMsg | null {
  if (roomEnd > 0) {
    result.roomStart = PREFIX.length;
    result.roomEnd = roomEnd;
    result.pushStart = -1;
    result.pushPayload = null;
    result.pushTag = null;
    return result;
  }
  if (roomEnd === 0) return null;
  // Maybe a push object (a machine's hint), or a payload with bytes the SIMD pass leaves to this
  // exact path (non-ASCII, control): the same checks field by field.
  if (!startsAt(b, 0, PREFIX)) return null;
  // The room's closing quote, by memchr. Its bytes are not checked here: the relay matches them
  // byte for byte against the rooms the socket joined (valid ids), and anything else goes to
  // the parser, which names the exact error.
  const roomStart = PREFIX.length;
  const i = b.indexOf(QUOTE, roomStart);
  if (i === -1 || !startsAt(b, i, PAYLOAD_KEY)) return null;
  const payloadStart = i + PAYLOAD_KEY.length;
  const payloadEnd = plainStringEnd(b, payloadStart);
  if (payloadEnd === -1) return null;
  result.roomStart = roomStart;
  result.roomEnd = i;
  result.pushStart = -1;
  result.pushPayload = null;
  result.pushTag = null;
  const rest = payloadEnd + 1;
  if (rest === b.length - 1 && b[rest] === BRACE_CLOSE) return result;
  if (rest + PUSH_NULL.length === b.length && startsAt(b, rest, PUSH_NULL)) return result;
  if (!startsAt(b, rest, PUSH_OBJ)) return null;
  const ppStart = rest + PUSH_OBJ.length;
  const ppEnd = plainStringEnd(b, ppStart);
  if (ppEnd === -1) return null;
  let j = ppEnd + 1;
  let tag: string | null = null;
  if (startsAt(b, j, TAG_KEY)) {
    const tagStart = j + TAG_KEY.length;
    let k = tagStart;
    // Printable ASCII only; escapes and non-ASCII take the slow path.
    while (
      k < b.length &&
      (b[k] as number) >= 0x20 &&
      (b[k] as number) < 0x7f &&
      b[k] !== QUOTE &&
      b[k] !== BACKSLASH
    )
      k++;
    if (b[k] !== QUOTE) return null;
    tag = b.toString('latin1', tagStart, k);
    j = k + 1;
  }
  if (j + 2 !== b.length || b[j] !== BRACE_CLOSE || b[j + 1] !== BRACE_CLOSE) return null;
  result.pushStart = rest;
  result.pushPayload = b.toString('utf8', ppStart, ppEnd);
  result.pushTag = tag;
  return result;
}
