// The subscriber's RESP2 reader (resp.ts): the same replies and messages however the stream is
// cut into reads (every single cut, and random multi-cuts), message payloads handed on as views
// of the reads (no copy), and every malformed stream refused with a stable code.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  makeRespReader,
  MAX_DEPTH,
  MAX_LINE_BYTES,
  type RespErrorCode,
  type RespValue,
} from './resp.ts';

type Event = ['reply', RespValue] | ['message', string, Buffer];

/** Runs the reader over `chunks`; messages come out with their pieces joined. */
function run(chunks: Buffer[]) {
  const events: Event[] = [];
  const pieces: Buffer[][] = [];
  let channel = '';
  let bytes = 0;
  let got: Buffer[] = [];
  const r = makeRespReader({
    reply: (v) => events.push(['reply', v]),
    messageStart(ch, n) {
      channel = ch.toString();
      bytes = n;
      got = [];
    },
    messageData: (p) => got.push(p),
    messageEnd() {
      const all = Buffer.concat(got);
      expect(all.length).toBe(bytes);
      events.push(['message', channel, all]);
      pieces.push(got);
    },
  });
  for (const c of chunks) {
    const e = r.push(c);
    if (e !== null) return { events, pieces, error: e.code as RespErrorCode };
  }
  return { events, pieces, error: null, inMessage: r.inMessage };
}

const bulk = (b: Buffer | string) => {
  const x = typeof b === 'string' ? Buffer.from(b) : b;
  return Buffer.concat([Buffer.from(`$${x.length}\r\n`), x, Buffer.from('\r\n')]);
};
const arr = (...items: Buffer[]) => Buffer.concat([Buffer.from(`*${items.length}\r\n`), ...items]);
const message = (channel: string, payload: Buffer) =>
  arr(bulk('message'), bulk(channel), bulk(payload));

/** Binary payload with CR, LF and "$" inside: the reader must count, not scan. */
const payload = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256));
const STREAM = Buffer.concat([
  arr(bulk('subscribe'), bulk('relay:in:x'), Buffer.from(':1\r\n')),
  message('relay:in:x', payload),
  Buffer.from('-ERR unknown command\r\n'),
  Buffer.from('+OK\r\n'),
  Buffer.from(':-42\r\n'),
  Buffer.from('$-1\r\n*-1\r\n*0\r\n$0\r\n\r\n'),
  arr(arr(bulk('a'), Buffer.from(':1\r\n')), bulk('b')),
  message('relay:ch:room', Buffer.alloc(0)),
  arr(bulk('smessage'), bulk('s'), bulk('\r\n$3\r\n')),
  arr(bulk('message'), bulk('c'), Buffer.from(':7\r\n')), // not a payload: a plain reply
  arr(bulk('pong'), bulk('')),
]);
const EXPECTED: Event[] = [
  ['reply', [Buffer.from('subscribe'), Buffer.from('relay:in:x'), 1]],
  ['message', 'relay:in:x', payload],
  ['reply', { redisError: 'ERR unknown command' }],
  ['reply', 'OK'],
  ['reply', -42],
  ['reply', null],
  ['reply', null],
  ['reply', []],
  ['reply', Buffer.alloc(0)],
  ['reply', [[Buffer.from('a'), 1], Buffer.from('b')]],
  ['message', 'relay:ch:room', Buffer.alloc(0)],
  ['message', 's', Buffer.from('\r\n$3\r\n')],
  ['reply', [Buffer.from('message'), Buffer.from('c'), 7]],
  ['reply', [Buffer.from('pong'), Buffer.alloc(0)]],
];

describe('RESP2 reader of the subscriber connection', () => {
  it('reads every reply and message of a stream in one read', () => {
    expect(run([STREAM])).toEqual({
      events: EXPECTED,
      pieces: expect.any(Array),
      error: null,
      inMessage: false,
    });
  });

  it('gives the same events for the stream cut at every byte position', () => {
    for (let k = 0; k <= STREAM.length; k++) {
      const r = run([STREAM.subarray(0, k), STREAM.subarray(k)]);
      expect(r.error, `cut at ${k}`).toBeNull();
      expect(r.events, `cut at ${k}`).toEqual(EXPECTED);
    }
  });

  it('gives the same events for the stream cut into one-byte reads and random reads', () => {
    const bytes = Array.from(STREAM, (_, i) => STREAM.subarray(i, i + 1));
    expect(run(bytes).events).toEqual(EXPECTED);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: STREAM.length - 1 })), (cuts) => {
        const at = [0, ...cuts.sort((a, b) => a - b), STREAM.length];
        const chunks = at.slice(1).map((end, i) => STREAM.subarray(at[i], end));
        const r = run(chunks);
        expect(r.error).toBeNull();
        expect(r.events).toEqual(EXPECTED);
      }),
      { numRuns: 300 },
    );
  });

  it('hands a message payload on as views of the reads, never copied', () => {
    const m = message('relay:in:x', payload);
    const cut = m.length - 100;
    const first = Buffer.from(m.subarray(0, cut));
    const second = Buffer.from(m.subarray(cut));
    const r = run([first, second]);
    const pieces = r.pieces[0] as Buffer[];
    expect(pieces).toHaveLength(2);
    expect(pieces[0]?.buffer).toBe(first.buffer);
    expect(pieces[1]?.buffer).toBe(second.buffer);
    expect(r.inMessage).toBe(false);
    expect(run([first]).inMessage).toBe(true);
  });

  it('refuses malformed streams with stable codes, and stays refused', () => {
    const bad: [string | Buffer, RespErrorCode][] = [
      ['!oops\r\n', 'resp-bad-type'],
      ['>3\r\n', 'resp-bad-type'], // RESP3 push: never asked for (no HELLO 3)
      ['$abc\r\n', 'resp-bad-length'],
      ['*1x\r\n', 'resp-bad-length'],
      ['$\r\n', 'resp-bad-length'],
      [':12345678901234567\r\n', 'resp-bad-length'], // beyond 2^53: not a count we use
      ['$-2\r\n', 'resp-bad-length'],
      ['+OK\rX', 'resp-bad-line-end'],
      ['$3\r\nabcXY', 'resp-bad-line-end'],
      [
        Buffer.concat([message('c', Buffer.from('xy')).subarray(0, -2), Buffer.from('\n\n')]),
        'resp-bad-line-end',
      ],
      ['+' + 'x'.repeat(MAX_LINE_BYTES + 1), 'resp-line-too-long'],
      ['$536870913\r\n', 'resp-too-large'],
      ['*1048577\r\n', 'resp-too-large'],
      ['*1\r\n'.repeat(MAX_DEPTH + 1), 'resp-too-deep'],
    ];
    for (const [input, code] of bad) {
      const chunk = typeof input === 'string' ? Buffer.from(input) : input;
      expect(run([chunk]).error, JSON.stringify(chunk.toString().slice(0, 30))).toBe(code);
      // Cut anywhere, the same refusal.
      const k = Math.floor(chunk.length / 2);
      expect(run([chunk.subarray(0, k), chunk.subarray(k)]).error).toBe(code);
    }
    const r = makeRespReader({
      reply: () => undefined,
      messageStart: () => undefined,
      messageData: () => undefined,
      messageEnd: () => undefined,
    });
    expect(r.push(Buffer.from('?'))?.code).toBe('resp-bad-type');
    expect(r.push(Buffer.from('+OK\r\n'))?.code).toBe('resp-dead');
  });
});
