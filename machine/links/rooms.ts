import {
  encodePairing,
  fromBase64Url,
  pairingLink,
  roomKeys,
  toBase64Url,
  type BackoffProfile,
  type MachineMessage,
  type PhoneMessage,
  type PhoneSealed,
} from '../../protocol/index.ts';
import type { Log } from '../log.ts';
import { makeFrameSealer, type FrameSealer } from '../wire/outbound.ts';
import { makeRelayLink, type RelayLink, type RelayLinkEvents } from './relay-link.ts';
import { makeRetiredRooms } from './retired-rooms.ts';
import { loadOrCreateSecret, saveSecret, writePairingCode } from './state-dir.ts';
import type { Store } from '../sessions/store.ts';
import type { Timers } from '../timers.ts';

// The room the machine lives in (from the pairing secret) and, after E6 revokes, the rooms it
// left. A revoke moves the machine: the new secret is written, a new link joins the new room, and
// the old link stays, answering only late phones (retired-rooms.ts). The pairing code shown from
// then on is the new room's.

export type Pairing = {
  code: string;
  link: string;
  roomId: string;
  codeFile: string;
  created: boolean;
};

export type CurrentRoom = {
  readonly secret: Uint8Array;
  readonly roomId: string;
  readonly key: Uint8Array;
  readonly sealer: FrameSealer;
  readonly link: RelayLink;
  readonly pairing: Pairing;
};

export type Rooms = ReturnType<typeof makeRooms>;

export function makeRooms(o: {
  relay: string;
  appUrl: string;
  stateDir: string;
  name: string;
  rePair: boolean;
  /** E9: the machine's box public key (base64url), carried in every pairing code. */
  boxKey: string;
  log: Log;
  timers: Timers;
  store: Store;
  random?: () => number;
  backoff?: BackoffProfile;
  /** The current room's events (the retired rooms have their own). */
  events: RelayLinkEvents;
  /** E6.4: what a late phone in a retired room gets. */
  rotateFor(phoneId: string, boxKey: string): MachineMessage | string;
  /** E9: a late phone's sealed register, opened (null when it proves nothing). */
  unseal(m: PhoneSealed): PhoneMessage | null;
  /** After a move: the new room's pairing is current; nobody is known to be in it yet. */
  onMoved?(): void;
}) {
  const openLink = (roomId: string, events: RelayLinkEvents) =>
    makeRelayLink({
      url: o.relay,
      roomId,
      log: o.log,
      events,
      ...(o.random ? { random: o.random } : {}),
      ...(o.backoff ? { profile: o.backoff } : {}),
    });
  const retired = makeRetiredRooms({
    store: o.store,
    timers: o.timers,
    log: o.log,
    openLink,
    rotateFor: (id, key) => o.rotateFor(id, key),
    unseal: (m) => o.unseal(m),
  });

  const loaded = loadOrCreateSecret(o.stateDir, o.rePair);
  let secret = loaded.secret;
  if (o.rePair) retired.forgetAll();
  // E6.5: a revoke recorded in the store whose new secret never reached the secret file (a
  // crash, a full disk) finishes now, with the secret the remaining phones were sent.
  const next = retired.nextOf(toBase64Url(secret));
  const nextBytes = next === undefined ? null : fromBase64Url(next);
  if (nextBytes !== null) {
    saveSecret(o.stateDir, nextBytes);
    secret = nextBytes;
    o.log('warn', 'revoke-finished', 'finished a revoke cut short: moved to its new room');
  }

  function enter(s: Uint8Array, created: boolean): CurrentRoom {
    const { roomId, key } = roomKeys(s);
    const code = encodePairing({
      v: 1,
      relay: o.relay,
      secret: toBase64Url(s),
      machine: o.name,
      boxKey: o.boxKey,
    });
    const codeFile = writePairingCode(o.stateDir, code);
    return {
      secret: s,
      roomId,
      key,
      sealer: makeFrameSealer(roomId, key),
      link: openLink(roomId, o.events),
      pairing: { code, link: pairingLink(o.appUrl, code), roomId, codeFile, created },
    };
  }

  let current = enter(secret, loaded.created);
  retired.openSaved();

  return {
    current: () => current,
    retired,
    /**
     * E6.3: after the revoke was recorded (retired.record) and every `room.rotate` went out in the
     * current room. A secret file that cannot be written is logged: the store already holds the
     * new secret, and the next start finishes the move (E6.5).
     */
    moveTo(nextSecret: Uint8Array): void {
      try {
        saveSecret(o.stateDir, nextSecret);
      } catch (e) {
        o.log('error', 'secret-write-failed', (e as Error).message);
      }
      const old = current;
      current = enter(nextSecret, true);
      retired.adopt(toBase64Url(old.secret), old.link);
      o.onMoved?.();
    },
    async close(): Promise<void> {
      await Promise.all([current.link.close(), retired.close()]);
    },
  };
}
