// P10: the ping sweep is split into slices over the interval; each socket is visited exactly once
// per interval. On the manual clock (T3).
import { describe, expect, it } from 'vitest';
import { makeManualTimers } from '../testkit/manual-clock.ts';
import { makePingSweep } from './ping-sweep.ts';

type Item = { id: number; pingSlice: number };
const items = (n: number, from = 0): Item[] =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, pingSlice: -1 }));

function setup(slices: number, intervalMs = 1_000) {
  const timers = makeManualTimers();
  const visits = new Map<number, number[]>(); // id → the moments it was visited
  let rounds = 0;
  const sweep = makePingSweep<Item>({
    timers,
    intervalMs,
    slices,
    visit: (it) => visits.set(it.id, [...(visits.get(it.id) ?? []), timers.now()]),
    everyInterval: () => rounds++,
  });
  const t0 = timers.now();
  return { timers, visits, sweep, t0, rounds: () => rounds };
}

describe('P10: the ping sweep is spread over the interval', () => {
  it('P10: 1,000 sockets in 10 slices: every 100 ms one slice of 100, each socket once per interval', () => {
    const { timers, visits, sweep, t0, rounds } = setup(10);
    const all = items(1_000);
    for (const it of all) sweep.add(it);
    for (let slice = 1; slice <= 10; slice++) {
      timers.advance(100);
      const visited = [...visits.values()].filter((v) => v.includes(t0 + 100 * slice));
      expect(visited, `slice ${slice}`).toHaveLength(100);
      expect(visits.size).toBe(100 * slice);
    }
    expect(rounds()).toBe(1);
    timers.advance(3 * 1_000);
    expect(rounds()).toBe(4);
    for (const it of all) {
      const at = visits.get(it.id) ?? [];
      expect(at).toHaveLength(4);
      // The same moment in every interval: exactly one interval apart.
      expect(at.slice(1).map((t, i) => t - (at[i] as number))).toEqual([1_000, 1_000, 1_000]);
    }
  });

  it('P10: a socket added later is visited within one interval and then once per interval; one deleted is never visited again', () => {
    const { timers, visits, sweep } = setup(4);
    const first = items(8);
    for (const it of first) sweep.add(it);
    timers.advance(500);
    const late = items(3, 100);
    for (const it of late) sweep.add(it);
    const gone = first[0] as Item;
    sweep.delete(gone);
    const goneVisits = visits.get(gone.id)?.length ?? 0;
    timers.advance(1_000);
    for (const it of late) expect(visits.get(it.id), `late ${it.id}`).toHaveLength(1);
    timers.advance(1_000);
    for (const it of late) expect(visits.get(it.id)).toHaveLength(2);
    expect(visits.get(gone.id)?.length ?? 0).toBe(goneVisits);
    expect(sweep.size()).toBe(10);
  });

  it('P10: one slice is the old sweep: every socket at the same moment', () => {
    const { timers, visits, sweep, t0 } = setup(1);
    for (const it of items(50)) sweep.add(it);
    timers.advance(999);
    expect(visits.size).toBe(0);
    timers.advance(1);
    expect([...visits.values()].every((v) => v.length === 1 && v[0] === t0 + 1_000)).toBe(true);
  });

  it('P10: stop() ends the sweep', () => {
    const { timers, visits, sweep } = setup(10);
    for (const it of items(20)) sweep.add(it);
    sweep.stop();
    timers.advance(5_000);
    expect(visits.size).toBe(0);
    expect(timers.pending()).toBe(0);
  });
});
