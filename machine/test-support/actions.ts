import {
  makeBoxKeyPair,
  sealPhoneMessage,
  type BoxKeyPair,
  type MachineMessage,
  type PhoneMessage,
  type PhoneSealed,
} from '../../protocol/index.ts';
import { makeIdentityGate } from '../phones/identity-gate.ts';
import { makeAgents } from '../agent/registry.ts';
import { makeUpdateScheduler } from '../sessions/activity.ts';
import type { Core } from '../core.ts';
import { makeLocalToolHost } from '../links/local-tool-host.ts';
import { makePending } from '../approvals/pending.ts';
import { makePhoneActions } from '../wire/phone-actions.ts';
import { makePhoneIdentity } from '../phones/phone-identity.ts';
import { makePhones } from '../phones/phones.ts';
import { makePresenceGate, type PresencePolicy } from '../phones/presence-gate.ts';
import { makeRules } from '../approvals/rules.ts';
import { makeSeenRequests } from '../wire/seen-requests.ts';
import { makeSessionStore } from '../sessions/sessions.ts';
import { makeTurns } from '../sessions/turns.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { makeTestStore } from './store.ts';

/** The room id every challenge names in these tests (there is no relay, so no real room). */
export const TEST_ROOM_ID = 'test-room-0000000000';

// The machine's action layer without a relay: what it sends is captured, so a test can push
// hundreds of actions through it (the relay's D3 rate limit would refuse them on the wire).
export function setupActions(
  o: {
    maxPages?: number;
    maxSeen?: number;
    requirePresence?: PresencePolicy;
    allowFullAccess?: boolean;
    roots?: string[];
  } = {},
) {
  const timers = makeManualTimers(Date.now());
  const sent: MachineMessage[] = [];
  const t = makeTestStore(o.maxPages !== undefined ? { maxPages: o.maxPages } : {});
  const now = () => timers.now();
  const sessions = makeSessionStore({ store: t.store, transcripts: t.transcripts, now });
  const phones = makePhones(t.store, now);
  const presence = makePresenceGate({ policy: o.requirePresence ?? 'none', phones, log: () => {} });
  const pending = makePending({
    timers,
    needsPresence: presence.approvalNeedsPresence,
    events: { approvalOpened() {}, approvalClosed() {}, questionOpened() {}, questionClosed() {} },
  });
  const scheduler = makeUpdateScheduler({ coalesceMs: 800, timers, emit: () => {} });
  const host = makeLocalToolHost({ roots: [] });
  const core: Core = {
    timers,
    log: () => {},
    sessions,
    pending,
    scheduler,
    send: (m) => sent.push(m),
    host: () => host,
    roots: o.roots ?? [],
    rules: makeRules({ store: t.store, now, fits: () => true }),
    rulesChanged: () => {},
    decidedBy: (id) => identity.by(id),
    presence,
    roomId: () => TEST_ROOM_ID,
    agents: makeAgents(),
  };
  const machineKeys = makeBoxKeyPair();
  const identity = makePhoneIdentity({
    core,
    phones,
    rooms: () => {
      throw new Error('no rooms without a relay');
    },
    boxKeyPair: machineKeys,
    relay: 'ws://127.0.0.1:9',
  });
  /** E9: `m` as the phone holding `keys` sends it once the machine is in identity mode. */
  const sealAs =
    (phoneId: string, keys: BoxKeyPair) =>
    (m: PhoneMessage): PhoneSealed => {
      const message = JSON.stringify(m);
      return {
        v: 1,
        type: 'phone.sealed',
        ts: m.ts,
        phoneId,
        message,
        box: sealPhoneMessage(message, machineKeys.publicKey, keys.secretKey),
      };
    };
  const actions = makePhoneActions({
    core,
    turns: makeTurns(core),
    roots: o.roots ?? [],
    allowFullAccess: o.allowFullAccess ?? false,
    seen: makeSeenRequests(t.store, {
      now,
      ...(o.maxSeen !== undefined ? { max: o.maxSeen } : {}),
    }),
    identity,
    phones,
    gate: makeIdentityGate({ phones, boxKeyPair: machineKeys, log: () => {} }),
    sendSnapshotAndRemind: () => {},
  });
  return {
    timers,
    sent,
    pending,
    actions,
    store: t.store,
    phones,
    sealAs,
    sessions,
    cleanup: t.cleanup,
  };
}
