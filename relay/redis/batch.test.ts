// The inbox batch format between replicas (batch.ts): what one event-loop turn queued for a
// replica is one message, entries come out verbatim and in order, and a truncated tail is
// ignored rather than misread.
import { describe, expect, it } from 'vitest';
import type { Role } from '../rooms.ts';
import { forEachEntry, makeBatcher } from './batch.ts';

const HEADER = Buffer.from('0123456789abcdefb-');

function collect(body: Buffer) {
  const out: [string, Role, string][] = [];
  forEachEntry(body, (room, role, frame) => out.push([room, role, frame.toString('utf8')]));
  return out;
}

describe('Inbox batches between replicas (issue 10)', () => {
  it('one turn → one message per replica; frames verbatim, in order, with room and role', async () => {
    const published: [string, Buffer][] = [];
    let together = 0;
    const b = makeBatcher(
      HEADER,
      (replica, message) => published.push([replica, message]),
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
    const [, toB] = published[0] as [string, Buffer];
    expect(toB.subarray(0, HEADER.length)).toEqual(HEADER);
    expect(collect(toB.subarray(HEADER.length))).toEqual([
      ['room-aaaaaaaa', 'phone', frames[0]],
      ['__proto__', 'machine', frames[1]],
      ['room-aaaaaaaa', 'phone', frames[2]],
    ]);
    b.flush(); // nothing queued: nothing sent
    expect(published).toHaveLength(2);
  });

  it('flush() publishes at once (before a count or presence command), and a cut tail is ignored', () => {
    const published: Buffer[] = [];
    const b = makeBatcher(
      HEADER,
      (_r, m) => published.push(m),
      (run) => run(),
    );
    b.add('B', 'room-bbbbbbbb', 'machine', Buffer.from('one'));
    b.add('B', 'room-bbbbbbbb', 'machine', Buffer.from('two'));
    b.flush();
    expect(published).toHaveLength(1);
    const body = (published[0] as Buffer).subarray(HEADER.length);
    expect(collect(body).map(([, , f]) => f)).toEqual(['one', 'two']);
    expect(collect(body.subarray(0, body.length - 1)).map(([, , f]) => f)).toEqual(['one']);
  });
});
