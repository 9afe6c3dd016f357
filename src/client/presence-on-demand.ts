import type * as Presence from '../../protocol/presence.ts';

// A8 + E7 + E9: protocol/presence.ts (the challenge texts and content hashes, ~0.6 KiB gzip) serves
// only when a card arrives, a decision is signed or a dispatch is sent — never to draw the first
// screen. The app build resolves protocol/'s `./presence.ts` to this module (vite.config.ts) and
// loads the real one with the crypto library (loadNacl, awaited through ClientDeps.loadCrypto
// before any room connects). A call before it fails loudly. Its constants
// (PRESENCE_CHALLENGE_PREFIX, PHONE_AUTHORITY_ACTIONS) are not offered: the app uses neither
// (presence-on-demand.test.ts keeps that true).
export type { DecisionChallenge, PhoneAuthorityAction } from '../../protocol/presence.ts';

type PresenceApi = typeof Presence;

let real: PresenceApi | null = null;
let loading: Promise<void> | null = null;

/** Loads protocol/presence.ts once; resolves when its builders may run. */
export function loadPresence(): Promise<void> {
  loading ??= import('../../protocol/presence.ts').then((m) => {
    real = m;
  });
  return loading;
}

export const PRESENCE_NOT_LOADED = 'A8: a presence challenge was built before loadNacl() resolved';

const need = (): PresenceApi => {
  if (real) return real;
  throw new Error(PRESENCE_NOT_LOADED);
};

export const approvalContentHash: PresenceApi['approvalContentHash'] = (a) =>
  need().approvalContentHash(a);
export const dispatchContentHash: PresenceApi['dispatchContentHash'] = (d) =>
  need().dispatchContentHash(d);
export const editedHash: PresenceApi['editedHash'] = (edited) => need().editedHash(edited);
export const decisionChallengeText: PresenceApi['decisionChallengeText'] = (c) =>
  need().decisionChallengeText(c);
export const dispatchChallengeText: PresenceApi['dispatchChallengeText'] = (c) =>
  need().dispatchChallengeText(c);
export const phoneAuthorityChallengeText: PresenceApi['phoneAuthorityChallengeText'] = (c) =>
  need().phoneAuthorityChallengeText(c);
export const dispatchNeedsPresence: PresenceApi['dispatchNeedsPresence'] = (required, access) =>
  need().dispatchNeedsPresence(required, access);
