import { describe, expect, it } from 'vitest';
import { makeManualTimers } from './manual-clock.ts';

describe('T3: the one manual clock', () => {
  it('T3: nothing fires until advance; then due timers fire in time order, ties in creation order, now() at each one', () => {
    const t = makeManualTimers(1000);
    const fired: string[] = [];
    const note = (name: string) => () => fired.push(`${name}@${t.now()}`);
    t.setTimeout(note('late'), 30);
    t.setTimeout(note('tie-a'), 10);
    t.setTimeout(note('tie-b'), 10);
    t.setTimeout(note('never'), 31);
    expect(fired).toEqual([]);
    t.advance(30);
    expect(fired).toEqual(['tie-a@1010', 'tie-b@1010', 'late@1030']);
    expect(t.now()).toBe(1030);
    expect(t.delays()).toEqual([1]);
  });

  it('T3: a timer armed while advancing fires in the same advance when due within it; one cleared meanwhile never fires', () => {
    const t = makeManualTimers(0);
    const beats: number[] = [];
    const beat = () => {
      beats.push(t.now());
      t.setTimeout(beat, 60);
    };
    t.setTimeout(beat, 60);
    const doomed = t.setTimeout(() => beats.push(-1), 20);
    t.setTimeout(() => t.clearTimeout(doomed), 10);
    t.advance(150);
    expect(beats).toEqual([60, 120]);
    expect(t.delays()).toEqual([30]);
  });

  it('T3: an interval fires once per period passed and stops when cleared', () => {
    const t = makeManualTimers(0);
    const at: number[] = [];
    const every = t.setInterval(() => at.push(t.now()), 25);
    t.advance(100);
    t.clearInterval(every);
    t.advance(100);
    expect(at).toEqual([25, 50, 75, 100]);
    expect(t.pending()).toBe(0);
  });

  it('T3: whenArmed(ms) resolves when a timer of exactly that length is next armed, not before', async () => {
    const t = makeManualTimers();
    let armed = false;
    const waiting = t.whenArmed(450).then(() => (armed = true));
    t.setTimeout(() => {}, 449);
    await Promise.resolve();
    expect(armed).toBe(false);
    t.setInterval(() => {}, 450);
    await waiting;
    expect(armed).toBe(true);
  });
});
