import { describe, expect, it } from 'vitest';
import { approvalRespondRefusal, offeredScopes } from './approval-checks.ts';
import type { ApprovalRequest, ApprovalRespond } from './message-types.ts';
import { PRESENCE } from './test-support/fixtures.ts';

type Offer = Pick<ApprovalRequest, 'rule' | 'editable' | 'presence'>;
type Answer = Pick<ApprovalRespond, 'decision' | 'scope' | 'edited' | 'presence'>;

const plain: Offer = {};
const sessionOnly: Offer = { rule: { key: 'run: npm test', scopes: ['session'] } };
const both: Offer = { rule: { key: 'write: src/**', scopes: ['session', 'always'] } };
const risky: Offer = { rule: { key: 'run: rm -rf', scopes: [] } };
const allow: Answer = { decision: 'allow' };
const deny: Answer = { decision: 'deny' };

describe('E2: scopes', () => {
  it('E2: once is always offered; session and always only when the rule lists them', () => {
    expect(offeredScopes(plain)).toEqual(['once']);
    expect(offeredScopes(risky)).toEqual(['once']);
    expect(offeredScopes(sessionOnly)).toEqual(['once', 'session']);
    expect(offeredScopes(both)).toEqual(['once', 'session', 'always']);
  });
  it.each([
    ['no rule', plain, 'session'],
    ['no rule', plain, 'always'],
    ['a risky call (no scope offered)', risky, 'session'],
    ['a session-only rule', sessionOnly, 'always'],
  ] as const)('E2: a scope the request did not offer is refused (%s, %s)', (_w, offer, scope) => {
    expect(approvalRespondRefusal(offer, { ...allow, scope })).toBe('scope-not-offered');
  });
  it('E2: an offered scope, once, or no scope at all is accepted', () => {
    expect(approvalRespondRefusal(both, { ...allow, scope: 'always' })).toBeNull();
    expect(approvalRespondRefusal(sessionOnly, { ...allow, scope: 'session' })).toBeNull();
    expect(approvalRespondRefusal(plain, { ...allow, scope: 'once' })).toBeNull();
    expect(approvalRespondRefusal(plain, allow)).toBeNull();
  });
  it('E2: a deny is never remembered, even where allow could be', () => {
    expect(approvalRespondRefusal(both, { ...deny, scope: 'always' })).toBe('scope-not-offered');
    expect(approvalRespondRefusal(both, deny)).toBeNull();
  });
});

describe('E3: edits', () => {
  const editable: Offer = { editable: { label: 'Command', value: 'npm test' } };
  it('E3: an edit on a request that was not editable is refused with not-editable', () => {
    expect(approvalRespondRefusal(plain, { ...allow, edited: 'npm test' })).toBe('not-editable');
  });
  it('E2 + E3: an edited allow is never remembered, even where the scope was offered', () => {
    const both2: Offer = { ...both, ...editable };
    expect(approvalRespondRefusal(both2, { ...allow, scope: 'session', edited: 'x' })).toBe(
      'scope-not-offered',
    );
    expect(approvalRespondRefusal(both2, { ...allow, scope: 'once', edited: 'x' })).toBeNull();
  });
  it('E3: an edit on an editable request is accepted; on a deny it is refused', () => {
    expect(approvalRespondRefusal(editable, { ...allow, edited: 'npm run lint' })).toBeNull();
    expect(approvalRespondRefusal(editable, { ...deny, edited: 'x' })).toBe('not-editable');
  });
});

describe('E7: presence', () => {
  const needs: Offer = { presence: true, editable: { label: 'Command', value: 'ls' } };
  it('E7: an allow without an assertion on a request that needs presence is refused with presence-required', () => {
    expect(approvalRespondRefusal(needs, allow)).toBe('presence-required');
    expect(approvalRespondRefusal(needs, { ...allow, edited: 'ls -la' })).toBe('presence-required');
  });
  it('E7: a deny never needs presence; an allow with an assertion goes on to verification', () => {
    expect(approvalRespondRefusal(needs, deny)).toBeNull();
    expect(approvalRespondRefusal(needs, { ...allow, presence: PRESENCE })).toBeNull();
    expect(approvalRespondRefusal(plain, allow)).toBeNull();
  });
  it('the checks run in order: scope, then edit, then presence', () => {
    const all: Answer = { decision: 'allow', scope: 'always', edited: 'x' };
    expect(approvalRespondRefusal({ presence: true }, all)).toBe('scope-not-offered');
    expect(approvalRespondRefusal({ presence: true }, { ...all, scope: 'once' })).toBe(
      'not-editable',
    );
  });
});
