import { afterEach, describe, expect, it } from 'vitest';
import { makeTestStore } from '../test-support/store.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A session's transcript in a real store of its own. */
function makeTranscriptStore() {
  const t = makeTestStore();
  cleanups.push(() => t.cleanup());
  return t.transcripts.forSession('session-1');
}

const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe('transcript paging', () => {
  it('entries oldest-first, built backwards from the newest until the byte budget is spent; `more` when older remain', () => {
    const store = makeTranscriptStore();
    for (let i = 1; i <= 10; i++)
      store.append(i % 2 ? 'user' : 'assistant', `entry ${i} ` + 'x'.repeat(90), 1000 + i);
    const [e8, e9, e10] = store.all().slice(7);
    // Budget boundary: exactly three entries fit (brackets + 3 entries + 2 commas), one byte less fits two.
    const exact = 2 + bytesOf(e8) + bytesOf(e9) + bytesOf(e10) + 2;
    const page = store.page({ budgetBytes: exact });
    expect(page.entries.map((e) => e.seq)).toEqual([8, 9, 10]);
    expect(page.more).toBe(true);
    expect(bytesOf(page.entries)).toBeLessThanOrEqual(exact);
    expect(store.page({ budgetBytes: exact - 1 }).entries.map((e) => e.seq)).toEqual([9, 10]);
  });

  it('`before` pages older: seq strictly less than it; the last page has no `more`', () => {
    const store = makeTranscriptStore();
    for (let i = 1; i <= 5; i++) store.append('user', `m${i}`, i);
    const budget = 2 + 2 * bytesOf(store.all()[0]) + 1;
    const p1 = store.page({ budgetBytes: budget });
    expect(p1.entries.map((e) => e.seq)).toEqual([4, 5]);
    const p2 = store.page({ before: 4, budgetBytes: budget });
    expect(p2.entries.map((e) => e.seq)).toEqual([2, 3]);
    const p3 = store.page({ before: 2, budgetBytes: budget });
    expect(p3).toEqual({ entries: [store.all()[0]], more: false });
    expect(store.page({ before: 1 })).toEqual({ entries: [], more: false });
  });

  it('every entry is free text clamped to 10 KiB with the suffix', () => {
    const store = makeTranscriptStore();
    const e = store.append('assistant', 'ß'.repeat(6000), 1);
    expect(Buffer.byteLength(e.text)).toBeLessThanOrEqual(10 * 1024);
    expect(e.text.endsWith('…[truncated]')).toBe(true);
    expect(e.truncated).toBe(true);
  });

  it('an entry larger than the whole budget is cut (truncated) so paging always progresses', () => {
    const store = makeTranscriptStore();
    store.append('user', 'old', 1);
    store.append('assistant', '\u0001'.repeat(5000), 2); // JSON-escapes to 6 bytes a char
    const page = store.page({ budgetBytes: 2000 });
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]!.truncated).toBe(true);
    expect(bytesOf(page.entries)).toBeLessThanOrEqual(2000);
    expect(page.more).toBe(true);
  });
});

describe('E10: entries written with something else, in one write', () => {
  it('E10 hooks: appendWith keeps the entries and the other write together — when the other write fails, neither is in the store and the entries wait in memory', () => {
    const t = makeTestStore();
    cleanups.push(() => t.cleanup());
    t.store.db.exec('CREATE TABLE marks (n INTEGER NOT NULL)');
    const mark = t.store.db.prepare('INSERT INTO marks (n) VALUES (?)');
    const store = t.transcripts.forSession('session-1');
    const count = () =>
      (t.store.db.prepare('SELECT COUNT(*) AS n FROM marks').get() as { n: number }).n;

    expect(store.appendWith([{ role: 'user', text: 'kept' }], 1, () => mark.run(1))).toBe(true);
    expect(count()).toBe(1);
    const failed = store.appendWith([{ role: 'assistant', text: 'held' }], 2, () => {
      mark.run(2);
      throw new Error('disk full');
    });
    expect(failed).toBe(false);
    expect(count()).toBe(1);
    expect(store.all().map((e) => e.text)).toEqual(['kept', 'held']);
    const stored = t.reopen().transcripts.forSession('session-1');
    expect(stored.all().map((e) => e.text)).toEqual(['kept']);
  });
});
