import { describe, expect, it } from 'vitest';
import { parseMachineMessage, type MachineMessage } from '../../protocol/index.ts';
import { applyMessage, emptyView, type MachineView } from './machine-view.ts';
import {
  MAX_RECENT_SESSIONS,
  lastKnown,
  recentSessions,
  sessionRowState,
} from './recent-sessions.ts';

const msg = (m: Record<string, unknown>): MachineMessage => {
  const r = parseMachineMessage({ v: 1, ts: 1, ...m });
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const session = (id: string, state: string, lastActivity = 1, extra = {}) => ({
  sessionId: id,
  title: `T ${id}`,
  cwd: '/w',
  state,
  lastActivity,
  dispatched: false,
  ...extra,
});
const apply = (v: MachineView, ...ms: Record<string, unknown>[]): MachineView =>
  ms.reduce<MachineView>((acc, m) => applyMessage(acc, msg(m), 1000), v);
const final = (sessionId: string, reason?: string) => ({
  type: 'turn.final',
  sessionId,
  ok: reason === undefined,
  summary: 'x',
  ...(reason ? { reason } : {}),
});

describe('SC5: the inbox lists every machine’s sessions with a state that never misleads', () => {
  it('SC5: sessions of every machine, newest first, at most MAX_RECENT_SESSIONS', () => {
    const a = apply(emptyView('room-a', 'laptop', 'ws://r'), {
      type: 'session.snapshot',
      sessions: [session('a1', 'running', 30), session('a2', 'done', 10)],
    });
    const b = apply(emptyView('room-b', 'desk', 'ws://r'), {
      type: 'session.snapshot',
      sessions: [session('b1', 'idle', 20), session('b2', 'error', 40)],
    });
    const { rows, total } = recentSessions([a, b]);
    expect(rows.map((r) => [r.view.name, r.session.sessionId])).toEqual([
      ['desk', 'b2'],
      ['laptop', 'a1'],
      ['desk', 'b1'],
      ['laptop', 'a2'],
    ]);
    expect(total).toBe(4);
    const many = apply(emptyView('room-c', 'ci', 'ws://r'), {
      type: 'session.snapshot',
      sessions: Array.from({ length: 30 }, (_, i) => session(`c${i}`, 'done', i)),
    });
    const bounded = recentSessions([many]);
    expect(bounded.rows).toHaveLength(MAX_RECENT_SESSIONS);
    expect(bounded.total).toBe(30);
    expect(bounded.rows[0]!.session.sessionId).toBe('c29');
  });

  it('SC5: a stopped turn (turn.final interrupted) reads stopped, never error; a later turn replaces it', () => {
    const v = apply(
      emptyView('room-a', 'laptop', 'ws://r'),
      { type: 'session.snapshot', sessions: [session('s1', 'error'), session('s2', 'idle')] },
      final('s1', 'interrupted'),
      final('s2', 'interrupted'),
    );
    expect(sessionRowState(v, v.sessions.s1!)).toBe('stopped');
    expect(sessionRowState(v, v.sessions.s2!)).toBe('stopped');
    const running = apply(v, { type: 'session.update', session: session('s1', 'running', 2) });
    expect(sessionRowState(running, running.sessions.s1!)).toBe('running');
    const failed = apply(
      running,
      { type: 'turn.final', sessionId: 's1', ok: false, summary: 'crashed' },
      {
        type: 'session.update',
        session: session('s1', 'error', 3),
      },
    );
    expect(sessionRowState(failed, failed.sessions.s1!)).toBe('error');
  });

  it('SC5: a session with E11 ended reads ended, whatever its state', () => {
    const v = apply(emptyView('room-a', 'laptop', 'ws://r'), {
      type: 'session.snapshot',
      sessions: [session('s1', 'error', 1, { ended: { reason: 'machine-restarted' } })],
    });
    expect(sessionRowState(v, v.sessions.s1!)).toBe('ended');
    expect(recentSessions([v]).rows[0]!.state).toBe('ended');
  });
});

describe('SC3.3: a session on a machine that is away is never shown as known to be running', () => {
  it('SC3.3: running and waiting are "as of" the last message from the machine while it is away; settled states stand; unknown without a time', () => {
    const v = apply(emptyView('room-a', 'laptop', 'ws://r'), {
      type: 'session.snapshot',
      sessions: [
        session('r', 'running'),
        session('w', 'awaiting_approval'),
        session('d', 'done'),
        session('i', 'idle'),
        session('e', 'error'),
      ],
    });
    const state = (id: string) => sessionRowState(v, v.sessions[id]!);
    expect(v.asOf).toBe(1000);
    expect(lastKnown(v, state('r'), true)).toEqual({ asOf: 1000 });
    expect(lastKnown(v, state('w'), true)).toEqual({ asOf: 1000 });
    for (const id of ['d', 'i', 'e']) expect(lastKnown(v, state(id), true)).toBeNull();
    // Online, every state is the machine's word now.
    for (const id of ['r', 'w', 'd']) expect(lastKnown(v, state(id), false)).toBeNull();
    expect(lastKnown({ asOf: null }, 'running', true)).toEqual({ asOf: null });
  });
});
