import { describe, expect, it } from 'vitest';
import { parseMachineMessage, type MachineMessage } from '../../protocol/index.ts';
import { applyMessage, emptyView, openCards, sessionsByActivity } from './machine-view.ts';
import { gapsOf, reachesStart } from './transcript-merge.ts';

const msg = (m: Record<string, unknown>): MachineMessage => {
  const r = parseMachineMessage({ v: 1, ts: 0, ...m });
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const entry = (seq: number) => ({ seq, role: 'assistant', text: `e${seq}`, ts: seq });
const base = emptyView('room-1234', 'laptop', 'ws://r');

describe('Transcript paging: newest page first, never mistaken for the start', () => {
  it('prepends an older page and keeps "more" from the oldest page fetched', () => {
    let v = applyMessage(
      base,
      msg({
        type: 'transcript',
        requestId: 'r1',
        sessionId: 's',
        entries: [entry(5), entry(6)],
        more: true,
      }),
      1,
      { ask: { sessionId: 's' } },
    );
    expect(reachesStart(v.transcripts.s!)).toBe(false);
    v = applyMessage(
      v,
      msg({
        type: 'transcript',
        requestId: 'r2',
        sessionId: 's',
        entries: [entry(3), entry(4)],
        more: false,
      }),
      2,
      { ask: { sessionId: 's', before: 5 } },
    );
    expect(v.transcripts.s!.entries.map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    expect(reachesStart(v.transcripts.s!)).toBe(true);
  });

  it('a page without `more` is the whole conversation; with more absent it is treated as complete only then', () => {
    const v = applyMessage(
      base,
      msg({ type: 'transcript', requestId: 'r1', sessionId: 's', entries: [entry(1)] }),
      1,
      { ask: { sessionId: 's' } },
    );
    expect(reachesStart(v.transcripts.s!)).toBe(true);
  });
});

describe('Cards: approvals and questions closed elsewhere leave a note', () => {
  it('approval.closed local removes the card and notes "answered on the computer"', () => {
    let v = applyMessage(
      base,
      msg({
        type: 'approval.request',
        approvalId: 'a',
        sessionId: 's',
        title: 'rm -rf',
        detail: '',
        createdAt: 3,
      }),
      1,
    );
    v = applyMessage(v, msg({ type: 'approval.closed', approvalId: 'a', resolution: 'local' }), 2);
    expect(v.approvals).toEqual({});
    expect(v.closed[0]).toMatchObject({
      kind: 'approval',
      resolution: 'local',
      title: 'rm -rf',
      sessionId: 's',
    });
  });

  it('question.closed for an unknown id changes nothing', () => {
    const v = applyMessage(
      base,
      msg({ type: 'question.closed', questionId: 'nope', resolution: 'local' }),
      2,
    );
    expect(v.closed).toEqual([]);
  });

  it('the inbox lists every open card across machines oldest first', () => {
    let a = applyMessage(
      base,
      msg({
        type: 'approval.request',
        approvalId: 'a',
        sessionId: 's',
        title: 't',
        detail: '',
        createdAt: 30,
      }),
      1,
    );
    a = applyMessage(
      a,
      msg({
        type: 'question.request',
        questionId: 'q',
        sessionId: 's',
        createdAt: 10,
        items: [{ id: 'i', prompt: 'p', options: [], multiSelect: false, allowFreeText: true }],
      }),
      1,
    );
    let b = emptyView('room-5678', 'desktop', 'ws://r');
    b = applyMessage(
      b,
      msg({
        type: 'approval.request',
        approvalId: 'b',
        sessionId: 's',
        title: 't',
        detail: '',
        createdAt: 20,
      }),
      1,
    );
    expect(
      openCards([a, b]).map((c) =>
        c.kind === 'approval' ? c.approval.approvalId : c.question.questionId,
      ),
    ).toEqual(['q', 'b', 'a']);
  });
});

describe('Sessions', () => {
  it('are listed by last activity, newest first, and an update replaces one session', () => {
    const s = (id: string, at: number) => ({
      sessionId: id,
      title: id,
      cwd: '/',
      state: 'idle',
      lastActivity: at,
      dispatched: false,
    });
    let v = applyMessage(
      base,
      msg({ type: 'session.snapshot', sessions: [s('old', 1), s('new', 9)] }),
      1,
    );
    v = applyMessage(v, msg({ type: 'session.update', session: s('old', 20) }), 2);
    expect(sessionsByActivity(v).map((x) => x.sessionId)).toEqual(['old', 'new']);
  });
});

describe('Transcript refresh', () => {
  const page = (entries: number[], more: boolean) =>
    msg({ type: 'transcript', requestId: 'r', sessionId: 's', entries: entries.map(entry), more });
  it('a newer newest page that touches what was read keeps the older pages and their "more"', () => {
    let v = applyMessage(base, page([5, 6], true), 1, { ask: { sessionId: 's' } });
    v = applyMessage(v, page([3, 4], true), 1, { ask: { sessionId: 's', before: 5 } });
    v = applyMessage(v, page([6, 7, 8], true), 2, { ask: { sessionId: 's' } });
    expect(v.transcripts.s!.entries.map((e) => e.seq)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(reachesStart(v.transcripts.s!)).toBe(false);
  });
  it('U3: with a gap, nothing is dropped: both ranges stay and the gap is known, not the start', () => {
    let v = applyMessage(base, page([1, 2], false), 1, { ask: { sessionId: 's' } });
    v = applyMessage(v, page([9, 10], true), 2, { ask: { sessionId: 's' } });
    expect(v.transcripts.s!.entries.map((e) => e.seq)).toEqual([1, 2, 9, 10]);
    expect(reachesStart(v.transcripts.s!)).toBe(true);
    expect(gapsOf(v.transcripts.s!)).toEqual([9]);
  });
});
