import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openSqlite } from '../../device/lane/sqlite.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { REQUEST_WINDOW_MS } from '../../protocol/index.ts';
import { makeSeenRequests } from '../wire/seen-requests.ts';
import { INTERRUPTED_NOTE, makeSessionStore } from './sessions.ts';
import { StateError } from '../links/state-dir.ts';
import { openStore, STORE_FILE, STORE_SCHEMA_VERSION } from './store.ts';
import { captureLog } from '../log.ts';
import { makeTestStore } from '../test-support/store.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
const testStore = (o: Parameters<typeof makeTestStore>[0] = {}) => {
  const t = makeTestStore(o);
  cleanups.push(() => t.cleanup());
  return t;
};
const DAY_MS = 24 * 60 * 60_000;

describe('U5: the machine store (state dir, owner-only, atomic, bounded)', () => {
  it('U5: the store and its journal files are 0600 in a 0700 folder', () => {
    const t = testStore();
    const s = t.transcripts.forSession('s1');
    for (let i = 0; i < 20; i++) s.append('assistant', `line ${i}`, i);
    expect(statSync(t.stateDir).mode & 0o777).toBe(0o700);
    const files = readdirSync(t.stateDir).filter((f) => f.startsWith(STORE_FILE));
    expect(files).toEqual(expect.arrayContaining([STORE_FILE, `${STORE_FILE}-wal`]));
    for (const f of files) expect(statSync(path.join(t.stateDir, f)).mode & 0o777).toBe(0o600);
  });

  it('U5: a transcript reads the same after the store is closed and opened again; seq goes on', () => {
    const t = testStore();
    const a = t.transcripts.forSession('s1');
    a.append('user', 'hello', 1);
    a.append('assistant', 'hi', 2, true);
    const { transcripts } = t.reopen();
    const b = transcripts.forSession('s1');
    expect(b.all()).toEqual([
      { seq: 1, role: 'user', text: 'hello', ts: 1 },
      { seq: 2, role: 'assistant', text: 'hi', ts: 2, truncated: true },
    ]);
    expect(b.append('user', 'again', 3).seq).toBe(3);
  });

  it('U5: a session keeps at most its entry and byte budget; the oldest entries go first', () => {
    const t = testStore({ limits: { entries: 5, bytes: 1000 } });
    const s = t.transcripts.forSession('s1');
    for (let i = 1; i <= 8; i++) s.append('user', `m${i}`, i);
    expect(s.all().map((e) => e.seq)).toEqual([4, 5, 6, 7, 8]);
    s.append('assistant', 'x'.repeat(995), 9);
    // 995 bytes and the newest entries that still fit beside it under 1000 bytes
    expect(s.all().map((e) => e.seq)).toEqual([7, 8, 9]);
    expect(s.page({}).entries.map((e) => e.seq)).toEqual([7, 8, 9]);
    expect(s.page({}).more).toBe(false);
  });

  it('U5: a write the store refuses (full disk) is reported once, nothing half-written stays, and the entry is written when the store takes writes again', () => {
    const t = testStore({ maxPages: 16 });
    const s = t.transcripts.forSession('s1');
    const big = 'y'.repeat(9000);
    let n = 0;
    while (!t.log.lines.some((l) => l.code === 'store-write-failed') && n < 200)
      s.append('assistant', `${++n} ${big}`, n);
    expect(n).toBeLessThan(200);
    s.append('assistant', 'after the failure', n + 1);
    expect(t.log.lines.filter((l) => l.code === 'store-write-failed')).toHaveLength(1);
    // Still readable, in order, the refused entries included (held in memory).
    expect(s.all().map((e) => e.seq)).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
    expect(t.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    t.store.db.pragma('max_page_count = 100000');
    s.append('assistant', 'room again', n + 2);
    expect(t.log.lines.some((l) => l.code === 'store-write-recovered')).toBe(true);
    const reopened = t.reopen().transcripts.forSession('s1');
    expect(reopened.all().map((e) => e.seq)).toEqual(
      Array.from({ length: n + 2 }, (_, i) => i + 1),
    );
  });

  it('U5: a damaged store stops the start with store-corrupt; one from a newer machine with store-too-new', () => {
    const t = testStore();
    t.store.close();
    writeFileSync(path.join(t.stateDir, STORE_FILE), 'this is not a database'.repeat(300));
    for (const suffix of ['-wal', '-shm'])
      writeFileSync(path.join(t.stateDir, STORE_FILE + suffix), '');
    const open = () => openStore(t.stateDir, { log: captureLog() });
    expect(open).toThrow(StateError);
    expect(() => open()).toThrow(expect.objectContaining({ code: 'store-corrupt' }));

    const u = testStore();
    u.store.db.pragma(`user_version = ${STORE_SCHEMA_VERSION + 1}`);
    u.store.close();
    expect(() => openStore(u.stateDir, { log: captureLog() })).toThrow(
      expect.objectContaining({ code: 'store-too-new' }),
    );
  });
});

describe('U5: sessions in the store', () => {
  const sessionsOf = (t: ReturnType<typeof testStore>, now: () => number, max?: number) =>
    makeSessionStore({
      store: t.store,
      transcripts: t.transcripts,
      now,
      ...(max !== undefined ? { maxSessions: max } : {}),
    });
  const create = (s: ReturnType<typeof sessionsOf>, prompt: string, now: number) =>
    s.create({ prompt, cwd: '/w', dispatched: true, access: 'standard', now });

  it('U5: a session whose turn a crash cut short comes back as error, its transcript saying so; others keep their state', () => {
    const t = testStore();
    const a = sessionsOf(t, () => 1000);
    const running = create(a, 'say: x', 1);
    running.state = 'running';
    a.save(running);
    const finished = create(a, 'say: y', 2);
    finished.state = 'done';
    a.save(finished);
    // no clean stop: the store is reopened as it was left
    const r = t.reopen();
    const b = makeSessionStore({ store: r.store, transcripts: r.transcripts, now: () => 2000 });
    expect(b.get(running.sessionId)).toMatchObject({ state: 'error', live: false });
    expect(b.get(running.sessionId)!.transcript.all().at(-1)).toMatchObject({
      text: INTERRUPTED_NOTE,
      ts: 2000,
    });
    expect(b.get(finished.sessionId)).toMatchObject({ state: 'done', live: false });
    expect(b.get(finished.sessionId)!.transcript.all()).toEqual([]);
  });

  it('U5: past the count the oldest idle sessions are forgotten with their transcripts; past 30 days too; a running one never', () => {
    const t = testStore();
    let now = 10 * DAY_MS;
    const s = sessionsOf(t, () => now, 3);
    const oldest = create(s, 'one', now);
    oldest.transcript.append('user', 'one', now);
    const busy = create(s, 'two', now + 1);
    busy.turn = new AbortController();
    create(s, 'three', now + 2);
    const fourth = create(s, 'four', now + 3);
    expect(s.list().map((x) => x.title)).toEqual(['four', 'three', 'two']);
    expect(t.transcripts.forSession(oldest.sessionId).all()).toEqual([]);
    now += 31 * DAY_MS;
    const fifth = create(s, 'five', now);
    expect(s.list().map((x) => x.sessionId)).toEqual([fifth.sessionId, busy.sessionId]);
    expect(s.get(fourth.sessionId)).toBeUndefined();
    // After a restart nothing runs it any more: past 30 days, it goes too.
    const r = t.reopen();
    const again = makeSessionStore({ store: r.store, transcripts: r.transcripts, now: () => now });
    expect(again.list().map((x) => x.title)).toEqual(['five']);
  });
});

describe('H3: requestIds seen are remembered in the store for twice the D11 window', () => {
  it('H3: an id is known across a reopen until 2 × the D11 window has passed, then forgotten', () => {
    const t = testStore();
    let now = 1_000_000;
    const a = makeSeenRequests(t.store, { now: () => now });
    expect(a.remember('r1', 'dispatch.request')).toBe('recorded');
    const b = makeSeenRequests(t.reopen().store, { now: () => now });
    expect(b.seen('r1')).toBe(true);
    now += 2 * REQUEST_WINDOW_MS;
    expect(b.seen('r1')).toBe(true);
    now += 1;
    expect(b.seen('r1')).toBe(false);
    b.remember('r2', 'transcript.get');
    const rows = t.store.db.prepare('SELECT request_id FROM seen_requests').all();
    expect(rows).toEqual([{ request_id: 'r2' }]);
  });

  it('H3: past the cap within the window a new action is refused; no id is forgotten early', () => {
    const t = testStore();
    let now = 0;
    const s = makeSeenRequests(t.store, { now: () => now, max: 3 });
    for (const id of ['a', 'b', 'c']) expect(s.remember(id, 'x')).toBe('recorded');
    expect(s.remember('d', 'x')).toBe('full');
    expect(['a', 'b', 'c', 'd'].map((id) => s.seen(id))).toEqual([true, true, true, false]);
    now = 2 * REQUEST_WINDOW_MS + 1;
    expect(s.remember('d', 'x')).toBe('recorded');
  });

  it('H3: when the store cannot record an id the answer is store-failed (the action is not run)', () => {
    const t = testStore({ maxPages: 8 });
    const s = makeSeenRequests(t.store, { now: () => 0 });
    let answer = s.remember('first', 'x');
    for (let i = 0; answer === 'recorded' && i < 5000; i++)
      answer = s.remember(`${i}-${'z'.repeat(100)}`, 'x');
    expect(answer).toBe('store-failed');
    expect(
      openSqlite(path.join(t.stateDir, STORE_FILE), { readOnly: true }).pragma('integrity_check', {
        simple: true,
      }),
    ).toBe('ok');
  });
});
