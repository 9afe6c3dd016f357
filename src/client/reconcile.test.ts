import { describe, expect, it } from 'vitest';
import { parseMachineMessage, type MachineMessage } from '../../protocol/index.ts';
import { applyMessage, emptyView, type MachineView } from './machine-view.ts';
import type { QueuedLookup } from './reconcile.ts';
import { STALE_FRAME_ALLOWANCE_MS } from './stale-frames.ts';

const msg = (m: Record<string, unknown>): MachineMessage => {
  const r = parseMachineMessage({ v: 1, ...m });
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const session = (id: string, state = 'awaiting_approval') => ({
  sessionId: id,
  title: id,
  cwd: '/w',
  state,
  lastActivity: 1,
  dispatched: false,
});
const approval = (id: string, ts: number, sessionId = 's1') =>
  msg({
    type: 'approval.request',
    ts,
    approvalId: id,
    sessionId,
    title: `Run ${id}`,
    detail: 'x',
    createdAt: ts,
  });
const question = (id: string, ts: number) =>
  msg({
    type: 'question.request',
    ts,
    questionId: id,
    sessionId: 's1',
    createdAt: ts,
    items: [{ id: 'i', prompt: `Ask ${id}`, options: [], multiSelect: false, allowFreeText: true }],
  });
const status = (ts: number, instance?: string) =>
  msg({
    type: 'machine.status',
    ts,
    machine: 'demo',
    pluginVersion: '1',
    ...(instance ? { instance } : {}),
  });
const apply = (v: MachineView, ...ms: MachineMessage[]) =>
  ms.reduce((acc, m) => applyMessage(acc, m, 1000), v);
const ids = (v: MachineView) => [...Object.keys(v.approvals), ...Object.keys(v.questions)];
const base = emptyView('room-1234', 'demo', 'ws://r');

describe('E1: cards always match the machine', () => {
  it('E1: a card absent from the snapshot’s open list closes with "no longer pending"', () => {
    let v = apply(base, approval('a1', 10), approval('a2', 11), question('q1', 12));
    v = apply(
      v,
      msg({
        type: 'session.snapshot',
        ts: 20,
        sessions: [session('s1')],
        open: { approvals: ['a2'], questions: [] },
      }),
    );
    expect(ids(v)).toEqual(['a2']);
    expect(v.closed.map((n) => [n.id, n.resolution])).toEqual([
      ['q1', 'gone'],
      ['a1', 'gone'],
    ]);
  });

  it('E1: a new machine instance closes every card of the old one with "restarted"', () => {
    let v = apply(base, status(5, 'inst-A'), approval('a1', 10), question('q1', 11));
    v = apply(v, status(30, 'inst-B'));
    expect(ids(v)).toEqual([]);
    expect(v.closed.map((n) => n.resolution)).toEqual(['restarted', 'restarted']);
    expect(v.instance).toBe('inst-B');
  });

  it('E1 fallback (no `open`, no `instance`): cards of absent or non-waiting sessions close; a waiting one stays', () => {
    let v = apply(
      base,
      approval('a1', 10, 's1'),
      approval('a2', 10, 's2'),
      approval('a3', 10, 's3'),
    );
    v = apply(
      v,
      msg({
        type: 'session.snapshot',
        ts: 20,
        sessions: [session('s1'), session('s2', 'running')],
      }),
    );
    expect(ids(v)).toEqual(['a1']);
    expect(v.closed.map((n) => n.id).sort()).toEqual(['a2', 'a3']);
  });

  it('E1: the queued decision of a closed card is named on its note ("not delivered")', () => {
    const queued: QueuedLookup = (kind, id) =>
      kind === 'approval' && id === 'a1' ? 'allow' : undefined;
    let v = apply(base, approval('a1', 10));
    v = applyMessage(v, msg({ type: 'session.snapshot', ts: 20, sessions: [] }), 1000, { queued });
    expect(v.closed[0]).toMatchObject({ id: 'a1', resolution: 'gone', undelivered: 'allow' });
  });

  it('E1: a snapshot built before a card arrived cannot close it (replayed snapshot)', () => {
    let v = apply(base, approval('a1', 50));
    v = apply(
      v,
      msg({
        type: 'session.snapshot',
        ts: 40,
        sessions: [],
        open: { approvals: [], questions: [] },
      }),
    );
    expect(ids(v)).toEqual(['a1']);
  });

  it('E1: a card closed by inference reopens only when the machine sends it again afterwards', () => {
    let v = apply(
      base,
      approval('a1', 10),
      msg({ type: 'session.snapshot', ts: 20, sessions: [] }),
    );
    expect(ids(v)).toEqual([]);
    v = apply(v, approval('a1', 15)); // the old frame, replayed
    expect(ids(v)).toEqual([]);
    v = apply(v, approval('a1', 25)); // D8 re-send after the snapshot: still pending after all
    expect(ids(v)).toEqual(['a1']);
  });

  it('D11: a card the machine closed never reopens, even from a newer-looking frame', () => {
    let v = apply(
      base,
      approval('a1', 10),
      msg({ type: 'approval.closed', ts: 12, approvalId: 'a1', resolution: 'deny' }),
    );
    v = apply(v, approval('a1', 99));
    expect(ids(v)).toEqual([]);
  });

  it('D11: an error "not-pending" naming a card we show closes it as "no longer pending"', () => {
    let v = apply(base, approval('a1', 10));
    v = apply(
      v,
      msg({
        type: 'error',
        ts: 11,
        message: 'approval a1 is not pending',
        context: 'a1',
        reason: 'not-pending',
      }),
    );
    expect(ids(v)).toEqual([]);
    expect(v.closed[0]).toMatchObject({ id: 'a1', resolution: 'gone' });
  });
});

describe('H10: stale machine→phone frames are ignored', () => {
  it('H10: a status of an instance that already went away is ignored (replay closes nothing)', () => {
    let v = apply(base, status(5, 'inst-A'), status(30, 'inst-B'), approval('b1', 31));
    v = apply(v, status(40, 'inst-A'));
    expect(v.instance).toBe('inst-B');
    expect(ids(v)).toEqual(['b1']);
  });

  it('H10: a frame far older than the newest one for the same card is ignored; within the clock allowance it is applied', () => {
    const t = 10 * STALE_FRAME_ALLOWANCE_MS;
    let v = apply(base, msg({ type: 'session.update', ts: t, session: session('s1', 'done') }));
    v = apply(
      v,
      msg({
        type: 'session.update',
        ts: t - STALE_FRAME_ALLOWANCE_MS - 1,
        session: session('s1', 'running'),
      }),
    );
    expect(v.sessions.s1!.state).toBe('done');
    v = apply(
      v,
      msg({
        type: 'session.update',
        ts: t - STALE_FRAME_ALLOWANCE_MS + 1,
        session: session('s1', 'idle'),
      }),
    );
    expect(v.sessions.s1!.state).toBe('idle');
  });

  it('H10: an old snapshot replayed after a newer one does not bring back old session states', () => {
    const t = 10 * STALE_FRAME_ALLOWANCE_MS;
    let v = apply(
      base,
      msg({ type: 'session.snapshot', ts: t, sessions: [session('s1', 'done')] }),
    );
    v = apply(
      v,
      msg({
        type: 'session.snapshot',
        ts: t - 2 * STALE_FRAME_ALLOWANCE_MS,
        sessions: [session('s1', 'running')],
      }),
    );
    expect(v.sessions.s1!.state).toBe('done');
  });
});

describe('E11.4: a closed card reads as its open card did', () => {
  it('E11.4: a closed command card keeps "Run <command>" as its title, built from the same words as the open card', async () => {
    const { closedTitle, headingOf } = await import('./card-words.ts');
    const run = (command: string) => `Run ${command}`;
    const open = msg({
      type: 'approval.request',
      ts: 10,
      approvalId: 'a1',
      sessionId: 's1',
      tool: 'run',
      title: 'Run a command',
      detail: 'npm test\n\nin /w',
      createdAt: 10,
    });
    const write = msg({
      type: 'approval.request',
      ts: 11,
      approvalId: 'a2',
      sessionId: 's1',
      tool: 'write',
      title: 'Write notes.md',
      detail: 'text',
      createdAt: 11,
    });
    let v = apply(base, open, write);
    const openHeading = headingOf(v.approvals.a1!);
    v = apply(
      v,
      msg({ type: 'approval.closed', ts: 12, approvalId: 'a1', resolution: 'allow' }),
      msg({ type: 'approval.closed', ts: 13, approvalId: 'a2', resolution: 'deny' }),
    );
    const byId = Object.fromEntries(v.closed.map((n) => [n.id, n]));
    expect(byId.a1).toMatchObject({ title: 'Run a command', command: 'npm test' });
    expect(openHeading).toEqual({ command: 'npm test' });
    expect(closedTitle(byId.a1!, run)).toBe('Run npm test');
    // A card whose title is the machine's keeps it, closed as open.
    expect(byId.a2!.command).toBeUndefined();
    expect(closedTitle(byId.a2!, run)).toBe('Write notes.md');
  });
});
