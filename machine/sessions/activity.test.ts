import { describe, expect, it } from 'vitest';
import { makeUpdateScheduler } from './activity.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';

function setup() {
  const timers = makeManualTimers();
  const sent: Array<{ id: string; at: number }> = [];
  const s = makeUpdateScheduler({
    coalesceMs: 800,
    timers,
    emit: (id) => sent.push({ id, at: timers.now() }),
  });
  return { timers, sent, s, t0: timers.now() };
}

describe('Session.activity coalescing (injected timers)', () => {
  it('Machines coalesce activity-only updates (800ms): a burst sends one at once and one at the window end', () => {
    const { timers, sent, s, t0 } = setup();
    for (let i = 0; i < 50; i++) {
      s.activityChanged('a');
      timers.advance(10);
    }
    // 500 ms in: the first went out at once, the rest wait for the window.
    expect(sent.map((x) => x.at - t0)).toEqual([0]);
    timers.advance(300);
    expect(sent.map((x) => x.at - t0)).toEqual([0, 800]);
    timers.advance(5000);
    expect(sent).toHaveLength(2);
  });

  it('state changes are never delayed behind them', () => {
    const { timers, sent, s, t0 } = setup();
    s.activityChanged('a');
    timers.advance(100);
    s.activityChanged('a'); // coalesced, pending for 700 ms
    timers.advance(100);
    s.stateChanged('a');
    expect(sent.map((x) => x.at - t0)).toEqual([0, 200]);
    // The pending activity-only send was folded into the state change.
    timers.advance(2000);
    expect(sent).toHaveLength(2);
    expect(timers.pending()).toBe(0);
  });

  it('sessions are coalesced independently', () => {
    const { timers, sent, s } = setup();
    s.activityChanged('a');
    s.activityChanged('b');
    s.activityChanged('a');
    expect(sent.map((x) => x.id)).toEqual(['a', 'b']);
    timers.advance(800);
    expect(sent.map((x) => x.id)).toEqual(['a', 'b', 'a']);
  });
});
