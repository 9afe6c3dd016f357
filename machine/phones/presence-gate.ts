import type { ApprovalRisk, PresenceAssertion, PresenceRequirement } from '../../protocol/index.ts';
import type { Log } from '../log.ts';
import type { ApprovalExtras } from '../approvals/pending.ts';
import { checkAssertion } from './presence-check.ts';
import type { Phones } from './phones.ts';

// E7 on the machine: which decisions need verified presence under `--require-presence`, and the
// check of an attached assertion against the credential of a registered, non-revoked phone.
// A refusal leaves the approval pending (or the dispatch not run) and names its E8 reason.

export const PRESENCE_POLICIES = { none: 'none', risky: 'risky', all: 'all' } as const;
export type PresencePolicy = keyof typeof PRESENCE_POLICIES;

export type PresenceRefusal = {
  reason: 'presence-required' | 'presence-invalid' | 'phone-revoked';
  message: string;
};

export type PresenceGate = ReturnType<typeof makePresenceGate>;

export function makePresenceGate(o: { policy: PresencePolicy; phones: Phones; log: Log }) {
  const requirement: PresenceRequirement | undefined = o.policy === 'none' ? undefined : o.policy;
  return {
    /** What `capabilities.presence` announces (absent under `none`). */
    requirement,
    /**
     * E7.1: under `risky`, what the machine classes as risky — a request it offers no rule for,
     * which carries its E11 `risk` (approval-offer.ts: full access, writes outside the folder,
     * commands that are not simple…); under `all`, every approval.
     */
    approvalNeedsPresence: (extras: ApprovalExtras): boolean =>
      o.policy === 'all' ||
      (o.policy === 'risky' && (extras.risk !== undefined || extras.rule === undefined)),
    /**
     * E3 + E7.1: an allow with an edit needs presence when the request did, and also, under
     * `risky` and `all`, when the edited command is risky itself (`editedRisk`, classed again by
     * approval-offer.ts): editing a harmless request into a risky one never skips presence.
     */
    allowNeedsPresence: (open: { presence?: true }, editedRisk: ApprovalRisk | null): boolean =>
      open.presence === true || (o.policy !== 'none' && editedRisk !== null),
    /** E9: `phone.approve` / `phone.revoke` from a phone need presence under `risky` and `all`. */
    authorityNeedsPresence: (): boolean => o.policy !== 'none',
    /**
     * Null when the assertion verifies for this challenge text (the counter is then kept). E9:
     * with `sender`, the credential must be that (proven) phone's own.
     */
    check(
      assertion: PresenceAssertion | undefined,
      text: string | null,
      sender?: string,
    ): PresenceRefusal | null {
      if (assertion === undefined) {
        return { reason: 'presence-required', message: 'this decision needs verified presence' };
      }
      const invalid = (why: string): PresenceRefusal => {
        o.log('warn', 'presence-invalid', why);
        return { reason: 'presence-invalid', message: `presence not verified: ${why}` };
      };
      if (text === null) return invalid('the decision cannot be written as a challenge');
      const phone = o.phones.byCredential(assertion.credentialId);
      if (phone === undefined || phone.credential === undefined) {
        return invalid('no registered phone holds this credential');
      }
      if (phone.revoked) {
        o.log('warn', 'presence-revoked', `a credential of revoked phone "${phone.name}"`);
        return { reason: 'phone-revoked', message: 'this phone was removed from the machine' };
      }
      if (sender !== undefined && phone.phoneId !== sender) {
        return invalid("the credential is another phone's, not the sender's");
      }
      if (phone.state !== 'approved') return invalid('the credential is a pending phone’s');
      const r = checkAssertion(assertion, text, phone.credential, phone.signCount);
      if (!r.ok) return invalid(`${r.code}: ${r.message}`);
      // The counter must be kept before the decision counts, or a copy could be replayed.
      if (!o.phones.setSignCount(phone.phoneId, r.signCount)) {
        return invalid('the machine could not record the signature counter');
      }
      return null;
    },
  };
}
