import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRules } from './rules.ts';
import { STORE_FILE } from '../sessions/store.ts';
import { makeTestStore } from '../test-support/store.ts';

// E2: the rule book itself, on a real store (the wire behaviour is in wire-approvals.test.ts).

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup(o: { max?: number; fits?: () => boolean } = {}) {
  const t = makeTestStore();
  cleanups.push(() => t.cleanup());
  const make = () =>
    makeRules({
      store: t.store,
      now: () => 1000,
      fits: o.fits ?? (() => true),
      ...(o.max ? { max: o.max } : {}),
    });
  return { t, make, rules: make() };
}

const ask = { tool: 'write', key: 'write: src/**', sessionId: 's1', root: '/r1' };

describe('E2: the rule book', () => {
  it('E2: a session rule matches only in its session; an always rule only under its root', () => {
    const { rules } = setup();
    expect(rules.add({ ...ask, scope: 'session' })).toMatchObject({ ok: true, created: true });
    expect(rules.match(ask)?.scope).toBe('session');
    expect(rules.match({ ...ask, sessionId: 's2' })).toBeUndefined();
    expect(rules.match({ ...ask, tool: 'run' })).toBeUndefined();
    expect(rules.add({ ...ask, scope: 'always' })).toMatchObject({ ok: true, created: true });
    expect(rules.match({ ...ask, sessionId: 's2' })?.scope).toBe('always');
    expect(rules.match({ ...ask, sessionId: 's2', root: '/r2' })).toBeUndefined();
    expect(rules.match({ ...ask, sessionId: 's2', root: undefined })).toBeUndefined();
    // The same rule twice is one rule.
    expect(rules.add({ ...ask, scope: 'always' })).toMatchObject({ ok: true, created: false });
    expect(rules.list()).toHaveLength(2);
  });

  it('E2: always rules are kept in the owner-only store and read back; session rules are not', () => {
    const { t, make, rules } = setup();
    rules.add({ ...ask, scope: 'always' });
    rules.add({ ...ask, key: 'write: a.txt', scope: 'session' });
    const always = rules.list().find((r) => r.scope === 'always')!;
    rules.use(always.ruleId);
    t.reopen();
    expect(make().list()).toEqual([{ ...always, uses: 1 }]);
    expect(statSync(path.join(t.stateDir, STORE_FILE)).mode & 0o777).toBe(0o600);
  });

  it('E2: a rule ends when revoked or with its session; a revoked rule is used no more', () => {
    const { rules } = setup();
    const a = rules.add({ ...ask, scope: 'always' });
    const s = rules.add({ ...ask, key: 'write: b', scope: 'session' });
    if (!a.ok || !s.ok) throw new Error('not added');
    expect(rules.revoke(a.rule.ruleId)).toBe(true);
    expect(rules.use(a.rule.ruleId)).toBe(false);
    expect(rules.revoke(a.rule.ruleId)).toBe(false);
    expect(rules.endSession('other')).toBe(false);
    expect(rules.endSession('s1')).toBe(true);
    expect(rules.list()).toEqual([]);
  });

  it('E2: a full rule book (count or one frame) has no room and refuses to add; an always rule needs a root', () => {
    const small = setup({ max: 1 }).rules;
    expect(small.add({ ...ask, scope: 'session' }).ok).toBe(true);
    expect(small.hasRoom({ ...ask, key: 'write: x', scope: 'session' })).toBe(false);
    expect(small.add({ ...ask, key: 'write: x', scope: 'session' })).toMatchObject({ ok: false });
    const noFrame = setup({ fits: () => false }).rules;
    expect(noFrame.hasRoom({ ...ask, scope: 'always' })).toBe(false);
    expect(setup().rules.add({ ...ask, root: undefined, scope: 'always' })).toMatchObject({
      ok: false,
    });
  });
});
