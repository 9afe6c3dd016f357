// E2, E3, E7: what an `approval.respond` may carry, given the `approval.request` it answers. The
// machine runs this before acting (the approval stays pending on a refusal, and the phone gets
// an `error` with the reason); the phone uses the same rules to offer only what will be accepted.
import type { ApprovalScope } from './closed-sets.ts';
import type { ApprovalRequest, ApprovalRespond } from './message-types.ts';

type Offer = Pick<ApprovalRequest, 'rule' | 'editable' | 'presence'>;
type Answer = Pick<ApprovalRespond, 'decision' | 'scope' | 'edited' | 'presence'>;

/** E2: `once` always, then the scopes the request's rule offers, in its order. */
export const offeredScopes = (request: Pick<ApprovalRequest, 'rule'>): ApprovalScope[] => [
  'once',
  ...(request.rule?.scopes ?? []),
];

export type ApprovalRefusal = 'scope-not-offered' | 'not-editable' | 'presence-required';

/**
 * Null when the respond may be acted on, else the E8 reason to refuse it with, checked in this
 * order: a scope the request did not offer (E2; only an allow may be remembered, and never an
 * edited one), an edit on a
 * request that was not editable (E3; only an allow may be edited), an allow without an assertion
 * on a request that needs presence (E7; a deny never does). Whether the assertion verifies is
 * the machine's own check (`presence-invalid`).
 */
export function approvalRespondRefusal(request: Offer, respond: Answer): ApprovalRefusal | null {
  const scope = respond.scope ?? 'once';
  const allow = respond.decision === 'allow';
  const edited = respond.edited !== undefined;
  const remembered = scope !== 'once';
  if (remembered && (!allow || edited || !offeredScopes(request).includes(scope))) {
    return 'scope-not-offered';
  }
  if (edited && (!allow || request.editable === undefined)) {
    return 'not-editable';
  }
  if (allow && request.presence === true && respond.presence === undefined) {
    return 'presence-required';
  }
  return null;
}
