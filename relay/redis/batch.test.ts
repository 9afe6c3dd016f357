// The inbox batch between replicas (batch.ts): what one event-loop turn queued for a replica is
// one PUBLISH, encoded in RESP exactly as a Redis client would; entries come out verbatim and in
// order; a truncated tail is ignored rather than misread.
import { describe, expect, it } from 'vitest';
import type { Role } from '../rooms.ts';
import {
  encodePublish,
  FRAME_VIEW_MIN_BYTES,
  forEachEntry,
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

describe('Inbox batches between replicas (issue 10)', () => {
  it('one turn → one PUBLISH per replica; frames verbatim, in order, with room and role', async () => {
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
    expect(published).toEqual([]); // nothing before the turn ends
    await new Promise<void>((r) => process.nextTick(r));
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
