// A streaming RESP2 reader for the replica's subscriber connection (subscriber.ts). Replies
// (subscribe acks, errors) come out whole; the payload of a pub/sub `message` push does not: it
// is handed on as the views of the received chunks it spans, never concatenated, so an inbox
// batch of many frames is sliced straight out of the socket's reads (batch.ts makeBatchReader).
// ioredis's decoder concatenated every message that spanned reads: about one copy of every
// frame on the receiving replica (docs/scaling.md).
import { err, type Err } from '../../protocol/result.ts';

export const RESP_ERROR_CODES = {
  'resp-bad-type': 'a reply starts with a byte that is not a RESP2 type',
  'resp-bad-length': 'a length or integer line is not a decimal integer',
  'resp-bad-line-end': 'a line or bulk string is not followed by CRLF',
  'resp-line-too-long': 'a line is longer than the reader accepts',
  'resp-too-large': 'a bulk string or array is larger than the reader accepts',
  'resp-too-deep': 'arrays nest deeper than the reader accepts',
  'resp-dead': 'the reader already failed; open a new connection',
} as const;
export type RespErrorCode = keyof typeof RESP_ERROR_CODES;

/** An error reply (`-ERR …`): a value, not a failure of the stream. */
export type RespErrorReply = { readonly redisError: string };
export type RespValue = Buffer | string | number | null | RespErrorReply | RespValue[];

export type RespSink = {
  /** A whole reply that is not a pub/sub message. */
  reply(v: RespValue): void;
  /** A `message`/`smessage` push begins: its payload of `bytes` follows as views. */
  messageStart(channel: Buffer, bytes: number): void;
  messageData(piece: Buffer): void;
  messageEnd(): void;
};

export type RespReader = {
  /** Consumes a chunk; an error is final (the stream is out of sync: drop the connection). */
  push(chunk: Buffer): Err<RespErrorCode> | null;
  /** True while a message payload is being streamed (so a dropped connection can abort it). */
  readonly inMessage: boolean;
};

export const MAX_LINE_BYTES = 64 * 1024;
/** Redis's own default proto-max-bulk-len. */
export const MAX_BULK_BYTES = 512 * 1024 * 1024;
export const MAX_ARRAY_ITEMS = 1024 * 1024;
export const MAX_DEPTH = 8;

const CR = 0x0d;
const LF = 0x0a;
const MESSAGE = Buffer.from('message');
const SMESSAGE = Buffer.from('smessage');

type Open = { items: RespValue[]; left: number };
// Reader states (numbers, not strings: compared once per byte run on the hot path).
const TYPE = 0;
const LINE = 1;
const BULK = 2;
const CRLF = 3;
const STREAM = 4;

export function makeRespReader(sink: RespSink): RespReader {
  let state = TYPE;
  let type = 0;
  const line = Buffer.allocUnsafe(MAX_LINE_BYTES);
  let lineLen = 0;
  let sawCr = false;
  let bulk: Buffer | null = null;
  let bulkAt = 0;
  let left = 0; // bytes of the streamed payload still to come
  let crlfLeft = 0;
  let streaming = false; // the CRLF being read ends a streamed payload
  let dead: Err<RespErrorCode> | null = null;
  const stack: Open[] = [];

  const fail = (code: RespErrorCode, detail = '') =>
    (dead = err(code, RESP_ERROR_CODES[code] + detail));

  const emit = (v0: RespValue) => {
    let v = v0;
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) return sink.reply(v);
      top.items.push(v);
      if (--top.left > 0) return;
      stack.pop();
      v = top.items;
    }
  };
  /** Parses `line[0..lineLen)` as a decimal integer; NaN if it is not one. */
  const integer = () => {
    let i = 0;
    let neg = false;
    if (line[0] === 0x2d) {
      neg = true;
      i = 1;
    }
    if (i === lineLen || lineLen - i > 15) return NaN;
    let n = 0;
    for (; i < lineLen; i++) {
      const d = (line[i] as number) - 0x30;
      if (d < 0 || d > 9) return NaN;
      n = n * 10 + d;
    }
    return neg ? -n : n;
  };
  /** Is the bulk string announced now the payload of a pub/sub message push? */
  const isPayload = () => {
    const top = stack[0];
    if (stack.length !== 1 || top === undefined || top.items.length !== 2 || top.left !== 1)
      return false;
    const kind = top.items[0];
    return (
      Buffer.isBuffer(kind) &&
      (kind.equals(MESSAGE) || kind.equals(SMESSAGE)) &&
      Buffer.isBuffer(top.items[1])
    );
  };
  /** A whole line arrived: its meaning depends on the type byte before it. */
  /** A whole line arrived: its meaning depends on the type byte before it. Null, or the error. */
  const endLine = (): Err<RespErrorCode> | null => {
    if (type === 0x2b /* + */) {
      emit(line.toString('utf8', 0, lineLen));
      return null;
    }
    if (type === 0x2d /* - */) {
      emit({ redisError: line.toString('utf8', 0, lineLen) });
      return null;
    }
    const n = integer();
    if (Number.isNaN(n))
      return fail('resp-bad-length', `: ${line.toString('latin1', 0, Math.min(lineLen, 40))}`);
    if (type === 0x3a /* : */) {
      emit(n);
      return null;
    }
    if (n < -1) return fail('resp-bad-length', `: ${n}`);
    if (n === -1) {
      emit(null); // a null bulk string or array
      return null;
    }
    if (type === 0x24 /* $ */) {
      if (n > MAX_BULK_BYTES) return fail('resp-too-large', `: ${n} bytes`);
      if (isPayload()) {
        sink.messageStart((stack[0] as Open).items[1] as Buffer, n);
        streaming = true;
        left = n;
      } else {
        bulk = Buffer.allocUnsafe(n);
        bulkAt = 0;
      }
      state = n > 0 ? (streaming ? STREAM : BULK) : CRLF;
      crlfLeft = 2;
      return null;
    }
    // '*'
    if (n > MAX_ARRAY_ITEMS) return fail('resp-too-large', `: ${n} items`);
    if (n === 0) emit([]);
    else if (stack.length >= MAX_DEPTH) return fail('resp-too-deep');
    else stack.push({ items: [], left: n });
    return null;
  };

  const push = (chunk: Buffer): Err<RespErrorCode> | null => {
    if (dead !== null) return err('resp-dead', RESP_ERROR_CODES['resp-dead']);
    let i = 0;
    const end = chunk.length;
    while (i < end) {
      switch (state) {
        case TYPE: {
          const t = chunk[i++] as number;
          if (t !== 0x2b && t !== 0x2d && t !== 0x3a && t !== 0x24 && t !== 0x2a)
            return fail('resp-bad-type', `: byte ${t}`);
          type = t;
          lineLen = 0;
          sawCr = false;
          state = LINE;
          break;
        }
        case LINE: {
          if (sawCr) {
            if (chunk[i++] !== LF) return fail('resp-bad-line-end');
            state = TYPE;
            const e = endLine();
            if (e !== null) return e;
            break;
          }
          const cr = chunk.indexOf(CR, i);
          const stop = cr === -1 ? end : cr;
          if (lineLen + (stop - i) > MAX_LINE_BYTES) return fail('resp-line-too-long');
          lineLen += chunk.copy(line, lineLen, i, stop);
          i = stop;
          if (cr !== -1) {
            sawCr = true;
            i++;
          }
          break;
        }
        case BULK: {
          const b = bulk as Buffer;
          const n = chunk.copy(b, bulkAt, i, Math.min(end, i + b.length - bulkAt));
          bulkAt += n;
          i += n;
          if (bulkAt === b.length) state = CRLF;
          break;
        }
        case STREAM: {
          const take = Math.min(left, end - i);
          sink.messageData(chunk.subarray(i, i + take));
          left -= take;
          i += take;
          if (left === 0) {
            crlfLeft = 2;
            state = CRLF;
          }
          break;
        }
        case CRLF: {
          if (chunk[i++] !== (crlfLeft === 2 ? CR : LF)) return fail('resp-bad-line-end');
          if (--crlfLeft > 0) break;
          state = TYPE;
          if (streaming) {
            streaming = false;
            stack.pop(); // the message push: handed on, not a reply
            sink.messageEnd();
          } else {
            const b = bulk as Buffer;
            bulk = null;
            emit(b);
          }
          break;
        }
      }
    }
    return null;
  };
  return {
    push,
    get inMessage() {
      return streaming;
    },
  };
}
