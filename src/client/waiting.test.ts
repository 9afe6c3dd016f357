import { describe, expect, it } from 'vitest';
import { parseMachineMessage, type MachineMessage } from '../../protocol/index.ts';
import { ageText, leftText } from './card-times.ts';
import { applyMessage, emptyView, type MachineView } from './machine-view.ts';
import { countText } from './text-count.ts';
import { chipOf, sessionCounts, waitingOf } from './waiting.ts';

const msg = (m: Record<string, unknown>): MachineMessage => {
  const r = parseMachineMessage({ v: 1, ts: 1, ...m });
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const session = (id: string, state: string) => ({
  sessionId: id,
  title: `T ${id}`,
  cwd: '/w',
  state,
  lastActivity: 1,
  dispatched: false,
});
const apply = (v: MachineView, ...ms: Record<string, unknown>[]): MachineView =>
  ms.reduce<MachineView>((acc, m) => applyMessage(acc, msg(m), 1000), v);
const base = emptyView('room-1234', 'demo', 'ws://r');

describe('U1: counts, chips and cards come from one store and always agree', () => {
  it('U1.3: offline after a reload (sessions cached, cards not): the wait is counted, listed and says why', () => {
    const v = apply(base, {
      type: 'session.snapshot',
      sessions: [session('s1', 'awaiting_approval')],
    });
    const w = waitingOf([v]);
    expect(w.cards).toEqual([]);
    expect(w.unseen.map((u) => u.session.sessionId)).toEqual(['s1']);
    expect(w.total).toBe(1);
    expect(sessionCounts(v).waiting).toBe(w.total);
    expect(chipOf(v, v.sessions.s1!)).toBe('unseen');
  });

  it('U1.3: with the card present, the chip, the count and the list name the same one thing', () => {
    const v = apply(
      base,
      {
        type: 'session.snapshot',
        sessions: [session('s1', 'awaiting_approval'), session('s2', 'running')],
      },
      {
        type: 'approval.request',
        approvalId: 'a1',
        sessionId: 's1',
        title: 'Run',
        detail: '',
        createdAt: 1,
      },
    );
    expect(waitingOf([v]).total).toBe(1);
    expect(sessionCounts(v)).toEqual({ running: 1, waiting: 1 });
    expect(chipOf(v, v.sessions.s1!)).toBe('awaiting_approval');
  });

  it('U1.3: a card that just closed is not turned into an "unseen" wait by the older "waiting" state', () => {
    let v = apply(
      base,
      { type: 'session.snapshot', ts: 5, sessions: [session('s1', 'awaiting_approval')] },
      {
        type: 'approval.request',
        ts: 6,
        approvalId: 'a1',
        sessionId: 's1',
        title: 'Run',
        detail: '',
        createdAt: 6,
      },
      { type: 'approval.closed', ts: 7, approvalId: 'a1', resolution: 'allow' },
    );
    expect(waitingOf([v]).total).toBe(0);
    expect(chipOf(v, v.sessions.s1!)).toBe('running');
    // …but a later description of the session as waiting, with no card, is unseen again.
    v = apply(v, { type: 'session.update', ts: 8, session: session('s1', 'awaiting_approval') });
    expect(waitingOf([v]).total).toBe(1);
  });

  it('U4.question: a waiting question gives its own chip, never "Waiting for approval"', () => {
    const v = apply(
      base,
      { type: 'session.snapshot', sessions: [session('s1', 'awaiting_approval')] },
      {
        type: 'question.request',
        questionId: 'q1',
        sessionId: 's1',
        createdAt: 1,
        items: [{ id: 'i', prompt: 'Name?', options: [], multiSelect: false, allowFreeText: true }],
      },
    );
    expect(chipOf(v, v.sessions.s1!)).toBe('question');
  });
});

describe('E1: card age and time left, on the machine’s clock', () => {
  it('reads "2 min ago" and "expires in 28 min", rounded so it never says "in 0 min"', () => {
    expect(ageText(0, 2 * 60_000 + 5_000)).toEqual({ key: 'age.min', n: 2 });
    expect(ageText(0, 30_000)).toEqual({ key: 'age.now', n: 0 });
    expect(ageText(0, 3 * 3_600_000)).toEqual({ key: 'age.hour', n: 3 });
    expect(ageText(10, 0)).toEqual({ key: 'age.now', n: 0 });
    expect(leftText(30 * 60_000, 2 * 60_000 + 1)).toEqual({ key: 'left.min', n: 28 });
    expect(leftText(60_000, 30_000)).toEqual({ key: 'left.soon', n: 0 });
    expect(leftText(60_000, 60_000)).toEqual({ key: 'left.over', n: 0 });
  });
});

describe('U2: the live counter', () => {
  it('counts code points and UTF-8 bytes and says when either is over', () => {
    expect(countText('日本', 8, 10)).toEqual({
      chars: 2,
      bytes: 6,
      maxChars: 8,
      maxBytes: 10,
      over: false,
    });
    expect(countText('😀😀😀', 8, 10).over).toBe(true); // 3 chars, 12 bytes
    expect(countText('x'.repeat(9), 8, 100).over).toBe(true);
  });
});
