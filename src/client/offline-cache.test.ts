import { describe, expect, it } from 'vitest';
import { parseMachineMessage, type MachineMessage } from '../../protocol/index.ts';
import { makeMemoryKv, type Kv } from './kv.ts';
import { MAX_TRANSCRIPTS_KEPT, applyMessage, emptyView, type MachineView } from './machine-view.ts';
import { CACHE_WRITE_DELAY_MS, loadCachedView, makeViewCache } from './offline-cache.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';

const msg = (m: Record<string, unknown>): MachineMessage => {
  const r = parseMachineMessage({ v: 1, ts: 1, ...m });
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const page = (sessionId: string, seq: number) =>
  msg({
    type: 'transcript',
    requestId: 'r',
    sessionId,
    entries: [{ seq, role: 'assistant', text: `${sessionId}#${seq}`, ts: seq }],
  });
const ROOM = 'room-1234';

function setup() {
  const kv = makeMemoryKv();
  const clock = makeManualTimers();
  const writes: string[] = [];
  const spy: Kv = {
    get: (k) => kv.get(k),
    set: (k, v) => (writes.push(k), kv.set(k, v)),
    del: (k) => (writes.push(`del ${k}`), kv.del(k)),
  };
  const cache = makeViewCache(spy, clock);
  const save = (v: MachineView) => {
    cache.save(v);
    clock.advance(CACHE_WRITE_DELAY_MS);
  };
  return { kv, writes, save, cache };
}

describe('H10: the offline cache is bounded and written in parts', () => {
  it('H10: a message rewrites only what it changed, never every transcript', () => {
    const { writes, save } = setup();
    let v = emptyView(ROOM, 'demo', 'ws://r');
    v = applyMessage(v, msg({ type: 'session.snapshot', sessions: [] }), 1);
    for (const s of ['s1', 's2', 's3']) v = applyMessage(v, page(s, 1), 2);
    save(v);
    writes.length = 0;
    v = applyMessage(v, page('s2', 2), 3);
    save(v);
    expect(writes.sort()).toEqual([`cache:${ROOM}`, `cache:${ROOM}:t:s2`]);
  });

  it('H10: transcripts beyond the bound are evicted from memory and from the disk; the rest reload', async () => {
    const { kv, save } = setup();
    let v = emptyView(ROOM, 'demo', 'ws://r');
    const n = MAX_TRANSCRIPTS_KEPT + 2;
    for (let i = 0; i < n; i++) v = applyMessage(v, page(`s${i}`, 1), 10 + i);
    save(v);
    expect(Object.keys(v.transcripts)).toHaveLength(MAX_TRANSCRIPTS_KEPT);
    expect(kv.data.has(`cache:${ROOM}:t:s0`)).toBe(false);
    expect(kv.data.has(`cache:${ROOM}:t:s${n - 1}`)).toBe(true);
    const loaded = await loadCachedView(kv, ROOM);
    expect(Object.keys(loaded!.transcripts!).sort()).toEqual(Object.keys(v.transcripts).sort());
    expect(loaded!.transcripts![`s${n - 1}`]!.entries[0]!.text).toBe(`s${n - 1}#1`);
  });

  it('reads the first cache format (one key, `{entries, more}` transcripts)', async () => {
    const kv = makeMemoryKv({
      [`cache:${ROOM}`]: {
        status: null,
        statusAt: null,
        sessions: {},
        finals: {},
        asOf: 5,
        transcripts: { s1: { entries: [{ seq: 4, role: 'user', text: 'hi', ts: 1 }], more: true } },
      },
    });
    const loaded = await loadCachedView(kv, ROOM);
    expect(loaded!.asOf).toBe(5);
    expect(loaded!.transcripts!.s1!.spans).toEqual([{ lo: 4, hi: 4 }]);
  });
});
