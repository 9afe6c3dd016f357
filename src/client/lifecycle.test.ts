import { describe, expect, it } from 'vitest';
import { HIDDEN_CLOSE_MS, watchLifecycle } from './lifecycle.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';

function target() {
  const handlers = new Map<string, () => void>();
  return {
    visibilityState: 'visible',
    addEventListener: (t: string, fn: () => void) => handlers.set(t, fn),
    removeEventListener: (t: string) => handlers.delete(t),
    fire: (t: string) => handlers.get(t)?.(),
  };
}

describe('D5: hidden app closes its socket, visible or online reconnects at once', () => {
  it('suspends HIDDEN_CLOSE_MS after hiding, not before, and resumes when visible', () => {
    const clock = makeManualTimers();
    const doc = target();
    const win = target();
    const calls: string[] = [];
    watchLifecycle({
      document: doc,
      window: win,
      timers: clock,
      suspend: () => calls.push('suspend'),
      resume: () => calls.push('resume'),
    });
    doc.visibilityState = 'hidden';
    doc.fire('visibilitychange');
    clock.advance(HIDDEN_CLOSE_MS - 1);
    expect(calls).toEqual([]);
    clock.advance(1);
    expect(calls).toEqual(['suspend']);
    doc.visibilityState = 'visible';
    doc.fire('visibilitychange');
    win.fire('online');
    expect(calls).toEqual(['suspend', 'resume', 'resume']);
  });

  it('a quick glance away does not close the socket', () => {
    const clock = makeManualTimers();
    const doc = target();
    const calls: string[] = [];
    watchLifecycle({
      document: doc,
      window: target(),
      timers: clock,
      suspend: () => calls.push('suspend'),
      resume: () => calls.push('resume'),
    });
    doc.visibilityState = 'hidden';
    doc.fire('visibilitychange');
    clock.advance(1_000);
    doc.visibilityState = 'visible';
    doc.fire('visibilitychange');
    clock.advance(HIDDEN_CLOSE_MS * 2);
    expect(calls).toEqual(['resume']);
  });
});
