import { describe, expect, it } from 'vitest';
import {
  DRAFT_WRITE_DELAY_MS,
  DRAFTS_INDEX_KEY,
  MAX_DRAFTS,
  draftKeys,
  makeDrafts,
} from './drafts.ts';
import { makeMemoryKv, type Kv } from './kv.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { flush } from './test-support/harness.ts';

function setup(kv = makeMemoryKv(), clock = makeManualTimers()) {
  const writes: string[] = [];
  const spy: Kv = {
    get: (k) => kv.get(k),
    set: (k, v) => (writes.push(k), kv.set(k, v)),
    del: (k) => (writes.push(`del ${k}`), kv.del(k)),
  };
  const drafts = makeDrafts({ kv: spy, timers: clock, now: clock.now, onChange: () => {} });
  return { drafts, kv, clock, writes };
}

describe('U2: drafts survive a reload and an app restart', () => {
  it('U2.3: a typed reply and prompt are stored per machine and session and read back after a restart', async () => {
    const { drafts, kv, clock } = setup();
    await drafts.load();
    drafts.set(draftKeys.reply('room-a', 's1'), 'half a thought');
    drafts.set(draftKeys.prompt('room-a'), 'fix the build');
    drafts.set(draftKeys.reply('room-b', 's1'), 'other machine');
    clock.advance(DRAFT_WRITE_DELAY_MS);
    await flush();
    const again = setup(kv, clock).drafts;
    await again.load();
    expect(again.get(draftKeys.reply('room-a', 's1'))).toBe('half a thought');
    expect(again.get(draftKeys.prompt('room-a'))).toBe('fix the build');
    expect(again.get(draftKeys.reply('room-b', 's1'))).toBe('other machine');
    expect(again.get(draftKeys.reply('room-a', 's2'))).toBe('');
  });

  it('U2.3: keystrokes are coalesced, and each write touches only its own draft', async () => {
    const { drafts, clock, writes } = setup();
    await drafts.load();
    drafts.set('reply:r:s1', 'a');
    drafts.set('reply:r:s1', 'ab');
    drafts.set('reply:r:s1', 'abc');
    clock.advance(DRAFT_WRITE_DELAY_MS);
    expect(writes).toEqual(['draft:reply:r:s1', DRAFTS_INDEX_KEY]);
    writes.length = 0;
    drafts.set('reply:r:s1', 'abcd');
    clock.advance(DRAFT_WRITE_DELAY_MS);
    expect(writes).toEqual(['draft:reply:r:s1']);
  });

  it('U2.1: a refused text goes back in the box before what was typed since; clear removes it from disk', async () => {
    const { drafts, kv } = setup();
    await drafts.load();
    drafts.set('reply:r:s1', 'typed since');
    drafts.restore('reply:r:s1', 'the refused reply');
    expect(drafts.get('reply:r:s1')).toBe('the refused reply\n\ntyped since');
    drafts.clear('reply:r:s1');
    await flush();
    expect(kv.data.has('draft:reply:r:s1')).toBe(false);
  });

  it('H10: at most MAX_DRAFTS are kept; the least recently typed goes first', async () => {
    const { drafts, clock, kv } = setup();
    await drafts.load();
    for (let i = 0; i <= MAX_DRAFTS; i++) drafts.set(`reply:r:s${i}`, `t${i}`);
    clock.advance(DRAFT_WRITE_DELAY_MS);
    await flush();
    expect(drafts.get('reply:r:s0')).toBe('');
    expect(drafts.get(`reply:r:s${MAX_DRAFTS}`)).toBe(`t${MAX_DRAFTS}`);
    expect(kv.data.has('draft:reply:r:s0')).toBe(false);
    expect((kv.data.get(DRAFTS_INDEX_KEY) as string[]).length).toBe(MAX_DRAFTS);
  });
});

describe('F4: a forgotten machine leaves no draft', () => {
  it('F4: forgetRoom removes the machine’s prompt and reply drafts from memory and disk, a pending write included; other machines keep theirs', async () => {
    const { drafts, kv, clock } = setup();
    await drafts.load();
    drafts.set(draftKeys.reply('room-a', 's1'), 'saved reply');
    drafts.set(draftKeys.prompt('room-a'), 'saved prompt');
    drafts.set(draftKeys.prompt('room-b'), 'other machine');
    clock.advance(DRAFT_WRITE_DELAY_MS);
    await flush();
    drafts.set(draftKeys.reply('room-a', 's2'), 'typed, not yet written');
    drafts.forgetRoom('room-a');
    clock.advance(DRAFT_WRITE_DELAY_MS);
    await flush();
    expect([...kv.data.keys()].filter((k) => k.includes('room-a'))).toEqual([]);
    expect(kv.data.get(DRAFTS_INDEX_KEY)).toEqual([draftKeys.prompt('room-b')]);
    expect(drafts.get(draftKeys.prompt('room-a'))).toBe('');
    const again = setup(kv, clock).drafts;
    await again.load();
    expect(again.all()).toEqual({ [draftKeys.prompt('room-b')]: 'other machine' });
  });
});
