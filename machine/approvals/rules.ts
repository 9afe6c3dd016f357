import { randomUUID } from 'node:crypto';
import { MAX_RULES, type RuleEntry, type RuleScope } from '../../protocol/index.ts';
import { statement } from '../../device/lane/sqlite.ts';
import type { Store } from '../sessions/store.ts';

// E2: remembered approvals. A rule matches a request by exact (tool, key) — the key is computed
// from the request by approval-offer.ts, so a risky request (no key) never matches — and:
// - a `session` rule only in the session it was made in; it lives in memory and ends with that
//   session (disposed, or the process stopping: no session is live after a restart);
// - an `always` rule only under the allowed root it was made under, never another; it is kept in
//   the store (SQLite in the 0600 state dir: atomic writes, one file with the rest of the state).
// A deny is never remembered (the caller only adds rules for an allow).

export type RuleQuery = { tool: string; key: string; sessionId: string; root: string | undefined };
export type RuleAdd = RuleQuery & { scope: RuleScope };
export type RuleAdded =
  { ok: true; rule: RuleEntry; created: boolean } | { ok: false; message: string };

export type Rules = ReturnType<typeof makeRules>;

type Row = {
  rule_id: string;
  tool: string;
  key: string;
  root: string;
  created_at: number;
  uses: number;
};

const fromRow = (r: Row): RuleEntry => ({
  ruleId: r.rule_id,
  key: r.key,
  tool: r.tool,
  scope: 'always',
  root: r.root,
  createdAt: r.created_at,
  uses: r.uses,
});

export function makeRules(o: {
  store: Store;
  now: () => number;
  /** Whether the `rules` message for this list still fits one frame. */
  fits: (rules: RuleEntry[]) => boolean;
  max?: number;
}) {
  const db = o.store.db;
  const max = o.max ?? MAX_RULES;
  const q = {
    all: statement<[], Row>(db, 'SELECT * FROM rules ORDER BY created_at, rule_id'),
    insert: db.prepare(
      'INSERT INTO rules (rule_id, tool, key, root, created_at, uses) VALUES (?, ?, ?, ?, ?, 0)',
    ),
    use: db.prepare('UPDATE rules SET uses = uses + 1 WHERE rule_id = ?'),
    remove: db.prepare('DELETE FROM rules WHERE rule_id = ?'),
  };
  const always = new Map<string, RuleEntry>(q.all.all().map((r) => [r.rule_id, fromRow(r)]));
  const session = new Map<string, RuleEntry>();

  const list = (): RuleEntry[] => [...always.values(), ...session.values()];
  const findIn = (scope: RuleScope, x: RuleQuery): RuleEntry | undefined =>
    scope === 'session'
      ? [...session.values()].find(
          (r) => r.tool === x.tool && r.key === x.key && r.sessionId === x.sessionId,
        )
      : x.root === undefined
        ? undefined
        : [...always.values()].find(
            (r) => r.tool === x.tool && r.key === x.key && r.root === x.root,
          );
  const find = (x: RuleQuery) => findIn('session', x) ?? findIn('always', x);

  /** Whether one more rule like `x` would still be within MAX_RULES and one frame. */
  const hasRoom = (x: RuleAdd): boolean => {
    const next: RuleEntry[] = [
      ...list(),
      {
        ruleId: randomUUID(),
        key: x.key,
        tool: x.tool,
        scope: x.scope,
        ...(x.scope === 'always' ? { root: x.root ?? '' } : { sessionId: x.sessionId }),
        createdAt: o.now(),
        uses: 0,
      },
    ];
    return next.length <= max && o.fits(next);
  };

  return {
    list,
    match: find,
    hasRoom,
    /** Counts one use; false when the rule was revoked meanwhile (then it must not allow). */
    use(ruleId: string): boolean {
      const s = session.get(ruleId);
      if (s !== undefined) {
        session.set(ruleId, { ...s, uses: s.uses + 1 });
        return true;
      }
      const a = always.get(ruleId);
      if (a === undefined) return false;
      // A failed count is logged by the store; the rule still stands.
      o.store.write('count a rule use', () => q.use.run(ruleId));
      always.set(ruleId, { ...a, uses: a.uses + 1 });
      return true;
    },
    add(x: RuleAdd): RuleAdded {
      const same = findIn(x.scope, x);
      if (same !== undefined) return { ok: true, rule: same, created: false };
      if (x.scope === 'always' && x.root === undefined)
        return { ok: false, message: 'this session has no allowed root to remember it under' };
      const rule: RuleEntry = {
        ruleId: randomUUID(),
        key: x.key,
        tool: x.tool,
        scope: x.scope,
        ...(x.scope === 'always' ? { root: x.root! } : { sessionId: x.sessionId }),
        createdAt: o.now(),
        uses: 0,
      };
      if (!hasRoom(x))
        return { ok: false, message: 'too many remembered approvals: revoke some first' };
      if (x.scope === 'always') {
        const stored = o.store.write('remember an approval', () =>
          q.insert.run(rule.ruleId, rule.tool, rule.key, rule.root, rule.createdAt),
        );
        if (!stored) return { ok: false, message: 'the machine could not store the rule' };
        always.set(rule.ruleId, rule);
      } else {
        session.set(rule.ruleId, rule);
      }
      return { ok: true, rule, created: true };
    },
    /** False when no such rule (or the store could not forget it: then it still stands). */
    revoke(ruleId: string): boolean {
      if (session.delete(ruleId)) return true;
      if (!always.has(ruleId)) return false;
      if (!o.store.write('revoke a rule', () => q.remove.run(ruleId), { durable: true }))
        return false;
      always.delete(ruleId);
      return true;
    },
    /** The session ended: its rules end with it. True when any did. */
    endSession(sessionId: string): boolean {
      let changed = false;
      for (const [id, r] of session) {
        if (r.sessionId === sessionId) changed = session.delete(id) || changed;
      }
      return changed;
    },
  };
}
