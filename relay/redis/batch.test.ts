// The inbox batch between replicas (batch.ts): what one event-loop turn queued for a replica is
// one PUBLISH, encoded in RESP exactly as a Redis client would; entries come out verbatim and in
// order; a truncated tail is ignored rather than misread.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Role } from '../rooms.ts';
import {
  encodePublish,
  BATCH_FLUSH_BYTES,
  FRAME_VIEW_MIN_BYTES,
  forEachEntry,
  makeBatchReader,
  makeBatcher,
  publishPieces,
} from './batch.ts';

const HEADER = Buffer.from('0123456789abcdefb-');
type Entry = { room: string; role: Role; frame: Buffer };

function collect(body: Buffer) {
  const out: [string, Role, string][] = [];
  forEachEntry(body, (room, role, frame) => out.push([room, role, frame.toString('utf8')]));
  return out;
}

/** Parses `*3 $7 PUBLISH $n channel $m message` and returns [channel, message]. */
function parsePublish(resp: Buffer): [string, Buffer] {
  const bulk = (at: number): [Buffer, number] => {
    expect(String.fromCharCode(resp[at] as number)).toBe('$');
    const eol = resp.indexOf('\r\n', at);
    const n = Number(resp.toString('latin1', at + 1, eol));
    expect(resp.toString('latin1', eol + 2 + n, eol + 4 + n)).toBe('\r\n');
    return [resp.subarray(eol + 2, eol + 2 + n), eol + 4 + n];
  };
  expect(resp.toString('latin1', 0, 4)).toBe('*3\r\n');
  const [name, a] = bulk(4);
  expect(name.toString()).toBe('PUBLISH');
  const [channel, b] = bulk(a);
  const [message, end] = bulk(b);
  expect(end).toBe(resp.length);
  return [channel.toString(), message];
}

describe('Inbox batches between replicas (RS2)', () => {
  it('one event-loop iteration → one PUBLISH per replica; frames verbatim, in order, with room and role', async () => {
    const published: [string, Entry[]][] = [];
    let together = 0;
    const b = makeBatcher(
      (replica, entries) => published.push([replica, entries]),
      (run) => {
        together++;
        run();
      },
    );
    const frames = ['{"kind":"msg","room":"r1","payload":"é"}', '', 'x'.repeat(70_000)];
    b.add('B', 'room-aaaaaaaa', 'phone', Buffer.from(frames[0] as string));
    b.add('C', 'room-aaaaaaaa', 'phone', Buffer.from(frames[0] as string));
    b.add('B', '__proto__', 'machine', Buffer.from(frames[1] as string));
    b.add('B', 'room-aaaaaaaa', 'phone', Buffer.from(frames[2] as string));
    expect(published).toEqual([]); // nothing before the iteration's reads are done
    await new Promise<void>((r) => process.nextTick(r));
    expect(published).toEqual([]);
    await new Promise<void>((r) => setImmediate(r));
    expect(together).toBe(1);
    expect(published.map(([r]) => r)).toEqual(['B', 'C']);
    const [channel, message] = parsePublish(
      encodePublish('relay:in:B', HEADER, (published[0] as [string, Entry[]])[1]),
    );
    expect(channel).toBe('relay:in:B');
    expect(message.subarray(0, HEADER.length)).toEqual(HEADER);
    expect(collect(message.subarray(HEADER.length))).toEqual([
      ['room-aaaaaaaa', 'phone', frames[0]],
      ['__proto__', 'machine', frames[1]],
      ['room-aaaaaaaa', 'phone', frames[2]],
    ]);
    b.flush(); // nothing queued: nothing sent
    expect(published).toHaveLength(2);
  });

  it('flush() publishes at once (before a count or presence command), and a cut tail is ignored', () => {
    const published: Entry[][] = [];
    const b = makeBatcher(
      (_r, entries) => published.push(entries),
      (run) => run(),
    );
    b.add('B', 'room-bbbbbbbb', 'machine', Buffer.from('one'));
    b.add('B', 'room-bbbbbbbb', 'machine', Buffer.from('two'));
    b.flush();
    expect(published).toHaveLength(1);
    const [, message] = parsePublish(encodePublish('c', HEADER, published[0] as Entry[]));
    const body = message.subarray(HEADER.length);
    expect(collect(body).map(([, , f]) => f)).toEqual(['one', 'two']);
    expect(collect(body.subarray(0, body.length - 1)).map(([, , f]) => f)).toEqual(['one']);
  });

  it('a batch that reaches BATCH_FLUSH_BYTES is published at once, the rest later', async () => {
    const published: [string, number][] = [];
    const b = makeBatcher(
      (replica, entries) => published.push([replica, entries.length]),
      (run) => run(),
    );
    const frame = Buffer.alloc(64 * 1024);
    const fill = Math.ceil(BATCH_FLUSH_BYTES / (frame.length + 7 + 'room'.length));
    for (let i = 0; i < fill; i++) b.add('B', 'room', 'phone', frame);
    expect(published).toEqual([['B', fill]]);
    b.add('B', 'room', 'phone', frame);
    expect(published).toHaveLength(1);
    await new Promise<void>((r) => setImmediate(r));
    expect(published).toEqual([
      ['B', fill],
      ['B', 1],
    ]);
  });

  it('large frames go out as the frames themselves (no copy), small ones copied; same RESP bytes', () => {
    const big = Buffer.alloc(FRAME_VIEW_MIN_BYTES, 0x41);
    const bigger = Buffer.alloc(16_383, 0x42);
    const entries: Entry[] = [
      { room: 'room-a', role: 'phone', frame: Buffer.from('small') },
      { room: 'room-b', role: 'machine', frame: big },
      { room: 'room-c', role: 'phone', frame: bigger },
      { room: 'room-d', role: 'phone', frame: Buffer.from('tail') },
    ];
    const pieces = publishPieces('relay:in:B', HEADER, entries);
    expect(pieces.filter((p) => p === big || p === bigger)).toEqual([big, bigger]);
    expect(pieces).toHaveLength(5);
    const [channel, message] = parsePublish(Buffer.concat(pieces));
    expect(channel).toBe('relay:in:B');
    expect(message.subarray(0, HEADER.length).equals(HEADER)).toBe(true);
    const got: [string, Role, Buffer][] = [];
    forEachEntry(message.subarray(HEADER.length), (room, role, frame) =>
      got.push([room, role, Buffer.from(frame)]),
    );
    expect(got).toEqual(entries.map((e) => [e.room, e.role, e.frame]));
  });
});

/** Streams `message` through makeBatchReader in `chunks`; entries with whether each was a view. */
function stream(chunks: Buffer[]) {
  const out: [string, Role, string, boolean][] = [];
  const r = makeBatchReader(HEADER.length, (room, role, frame) =>
    out.push([room, role, frame.toString('latin1'), chunks.some((c) => c.buffer === frame.buffer)]),
  );
  r.start(chunks.reduce((n, c) => n + c.length, 0));
  for (const c of chunks) r.push(c);
  r.end();
  return out;
}
/** The message of a PUBLISH, copied into a buffer of its own per chunk (as reads would be). */
const cutAt = (message: Buffer, cuts: number[]) => {
  const at = [0, ...[...new Set(cuts)].sort((a, b) => a - b), message.length];
  // Each in an ArrayBuffer of its own (not Node's shared pool), so a view is recognisable.
  return at
    .slice(1)
    .map((end, i) => Buffer.from(new Uint8Array(message.subarray(at[i], end)).buffer));
};
const entryArb = fc.record({
  // Repeats and same-length neighbours too: the reader reuses the last room's string.
  room: fc.oneof(
    fc.constantFrom('room-a', 'room-b', 'r'),
    fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 40,
    }),
  ),
  role: fc.constantFrom<Role>('machine', 'phone'),
  frame: fc
    .oneof(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ minLength: 4_000, maxLength: 20_000 }))
    .map((a) => Buffer.from(a)),
});

describe('Inbox batches read as they arrive (makeBatchReader)', () => {
  it('the same entries as forEachEntry for the message cut at every byte position', () => {
    const entries: Entry[] = [
      { room: 'room-a', role: 'phone', frame: Buffer.from('{"kind":"msg"}') },
      { room: 'r', role: 'machine', frame: Buffer.alloc(0) },
      { room: 'room-c', role: 'phone', frame: Buffer.from('x\r\n'.repeat(20)) },
    ];
    const [, message] = parsePublish(encodePublish('relay:in:B', HEADER, entries));
    const expected = collect(message.subarray(HEADER.length));
    for (let k = 0; k <= message.length; k++)
      expect(
        stream(cutAt(message, [k])).map(([r, o, f]) => [r, o, f]),
        `cut at ${k}`,
      ).toEqual(expected.map(([r, o, f]) => [r, o, Buffer.from(f).toString('latin1')]));
  });

  it('random batches cut at random positions: same entries, in order; frames inside one read are views', () => {
    fc.assert(
      fc.property(
        fc.array(entryArb, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (entries, rawCuts) => {
          const [, message] = parsePublish(encodePublish('relay:in:B', HEADER, entries));
          const chunks = cutAt(
            message,
            rawCuts.map((c) => c % (message.length + 1)),
          );
          const got = stream(chunks);
          expect(got.map(([r, o, f]) => [r, o, f])).toEqual(
            entries.map((e) => [e.room, e.role, e.frame.toString('latin1')]),
          );
          // Unsplit frames are views of a read; a split one is assembled once.
          let at = HEADER.length;
          entries.forEach((e, i) => {
            at += 7 + e.room.length;
            let off = 0;
            const inOne = chunks.some((c) => {
              const ok = at >= off && at + e.frame.length <= off + c.length;
              off += c.length;
              return ok;
            });
            if (e.frame.length > 0) expect(got[i]?.[3]).toBe(inOne);
            at += e.frame.length;
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a cut tail, an entry running past the message, and a message that is not a batch are ignored', () => {
    const entries: Entry[] = [
      { room: 'room-a', role: 'phone', frame: Buffer.from('one') },
      { room: 'room-a', role: 'phone', frame: Buffer.from('two') },
    ];
    const [, message] = parsePublish(encodePublish('c', HEADER, entries));
    expect(stream([message.subarray(0, message.length - 1)]).map(([, , f]) => f)).toEqual(['one']);
    const lying = Buffer.from(message);
    lying.writeUInt32BE(1_000_000, lying.length - 7); // the second frame's length
    expect(stream([lying]).map(([, , f]) => f)).toEqual(['one']);
    const notBatch = Buffer.from(message);
    notBatch[HEADER.length - 2] = 0x63; // 'c'
    expect(stream(cutAt(notBatch, [HEADER.length - 2]))).toEqual([]);
    // A connection lost mid-message: end() drops the partial entry; the next message is whole.
    const out: string[] = [];
    const r = makeBatchReader(HEADER.length, (_room, _role, f) => out.push(f.toString()));
    r.start(message.length);
    r.push(message.subarray(0, message.length - 2));
    r.end();
    r.start(message.length);
    r.push(message);
    r.end();
    expect(out).toEqual(['one', 'one', 'two']);
  });
});
