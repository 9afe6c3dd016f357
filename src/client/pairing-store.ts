import {
  encodeBoxKey,
  fromBase64Url,
  parsePairing,
  parsePairingLink,
  roomKeys,
  type Pairing,
  type Result,
} from '../../protocol/index.ts';
import { PAIRINGS_KEY } from '../../page-worker/store-layout.ts';
import type { Kv } from './kv.ts';
import type { PhoneIdentity } from './phone-identity.ts';

// Paired machines and their secrets, kept only in IndexedDB under one key so a re-pair replaces
// a machine's secret in a single write. The service worker reads the same key to find the room
// keys that open a push (D6).
/** E6: machines that removed this phone (RemovedNotice[]), page-only, so the notice survives a reload. */
export const REMOVED_KEY = 'removed-from';

export type PairedMachine = {
  roomId: string;
  relay: string;
  machine: string;
  /** The pairing secret, base64url, exactly as in the pairing code. */
  secret: string;
  pairedAt: number;
  /** E6: this phone's identity towards the machine; absent on pairings made before E6. */
  phone?: PhoneIdentity;
  /**
   * E6/E9: the machine's box key (standard base64), the only key that may box a `room.rotate`
   * or a `phone.removed` for this phone. E9: taken from the pairing code only.
   */
  machineBoxKey?: string;
  /** E9: `machineBoxKey` came from the pairing code (a key pinned from a status is not trusted). */
  boxKeyFromCode?: true;
};

/** E6: "This phone was removed from <machine>"; the secret is already gone. */
export type RemovedNotice = { roomId: string; machine: string; relay: string; at: number };

export type PairingStore = {
  load(): Promise<PairedMachine[]>;
  list(): readonly PairedMachine[];
  /** Saves a confirmed pairing; a machine paired again (same relay and name) is replaced. */
  save(
    pairing: Pairing,
    now: number,
    phone?: PhoneIdentity,
  ): Promise<{ paired: PairedMachine; replaced: string[] }>;
  forget(roomId: string): Promise<void>;
  /**
   * E9.19: the identity a re-pair keeps — this phone's own, from a pairing of the very same room
   * (same secret) whose machine key, when pinned from a code, is the code's too; undefined means
   * the pairing gets a new identity. Keeping it is how the machine knows the phone is the same
   * one: the same phoneId, proven by the same box key (E9.8), so no second row appears.
   */
  identityFor(pairing: Pairing): PhoneIdentity | undefined;
  /** E6: changes the stored record of one room (identity, pinned key); null when unknown. */
  update(
    roomId: string,
    patch: Partial<Pick<PairedMachine, 'phone' | 'machineBoxKey'>>,
  ): Promise<PairedMachine | null>;
  /**
   * E6: `room.rotate` — the pairing moves to the new secret's room in one write (S is dropped in
   * the same write); identity and pinned key stay. Null when the room is not paired.
   */
  rotate(roomId: string, next: { secret: string; relay: string }): Promise<PairedMachine | null>;
  /** E6: the machine removed this phone — the pairing and its secret go, a notice stays. */
  markRemoved(roomId: string, now: number): Promise<RemovedNotice | null>;
  removed(): readonly RemovedNotice[];
  dismissRemoved(roomId: string): Promise<void>;
};

/** E9: the machine key a code carries, as stored (standard base64). */
function codeKey(pairing: Pairing): Pick<PairedMachine, 'machineBoxKey' | 'boxKeyFromCode'> {
  const bytes = pairing.boxKey === undefined ? null : fromBase64Url(pairing.boxKey);
  return bytes === null ? {} : { machineBoxKey: encodeBoxKey(bytes), boxKeyFromCode: true };
}

/** Reads a pasted code or a `#pair=` link; nothing is stored here. */
export function readPairingInput(input: string): Result<Pairing, string> {
  const text = input.trim();
  return text.includes('#pair=') ? parsePairingLink(text) : parsePairing(text);
}

export function makePairingStore(kv: Kv): PairingStore {
  let machines: PairedMachine[] = [];
  let removed: RemovedNotice[] = [];
  const write = async (next: PairedMachine[]) => {
    await kv.set(PAIRINGS_KEY, next);
    machines = next;
  };
  return {
    async load() {
      machines = (await kv.get<PairedMachine[]>(PAIRINGS_KEY)) ?? [];
      removed = (await kv.get<RemovedNotice[]>(REMOVED_KEY)) ?? [];
      return machines;
    },
    list: () => machines,
    async save(pairing, now, phone) {
      const { roomId } = roomKeys(pairing.secretBytes);
      const paired: PairedMachine = {
        roomId,
        relay: pairing.relay,
        machine: pairing.machine,
        secret: pairing.secret,
        pairedAt: now,
        ...(phone ? { phone } : {}),
        ...codeKey(pairing),
      };
      const replaced = machines
        .filter(
          (m) =>
            m.roomId === roomId || (m.relay === pairing.relay && m.machine === pairing.machine),
        )
        .map((m) => m.roomId);
      await write([...machines.filter((m) => !replaced.includes(m.roomId)), paired]);
      return { paired, replaced };
    },
    async forget(roomId) {
      await write(machines.filter((m) => m.roomId !== roomId));
    },
    identityFor(pairing) {
      // Only the same room: a code naming another room could come from anyone holding a copy of
      // it, announcing the real machine's key; this phone's signatures there must count for
      // nothing at the real machine, so a new identity goes there (and waits, E9.9).
      const old = machines.find((m) => m.roomId === roomKeys(pairing.secretBytes).roomId);
      if (!old?.phone) return undefined;
      const key = codeKey(pairing).machineBoxKey;
      if (old.boxKeyFromCode && key !== undefined && old.machineBoxKey !== key) return undefined;
      return old.phone;
    },
    async update(roomId, patch) {
      const old = machines.find((m) => m.roomId === roomId);
      if (!old) return null;
      const changed = { ...old, ...patch };
      await write(machines.map((m) => (m === old ? changed : m)));
      return changed;
    },
    async rotate(roomId, next) {
      const old = machines.find((m) => m.roomId === roomId);
      const bytes = fromBase64Url(next.secret);
      if (!old || !bytes) return null;
      const moved: PairedMachine = {
        ...old,
        roomId: roomKeys(bytes).roomId,
        relay: next.relay,
        secret: next.secret,
      };
      await write(machines.map((m) => (m === old ? moved : m)));
      return moved;
    },
    async markRemoved(roomId, now) {
      const old = machines.find((m) => m.roomId === roomId);
      if (!old) return null;
      const notice = { roomId, machine: old.machine, relay: old.relay, at: now };
      const notices = [...removed.filter((r) => r.roomId !== roomId), notice];
      // The notice first: a crash between the writes leaves a notice and a secret, never silence.
      await kv.set(REMOVED_KEY, notices);
      removed = notices;
      await write(machines.filter((m) => m !== old));
      return notice;
    },
    removed: () => removed,
    async dismissRemoved(roomId) {
      const notices = removed.filter((r) => r.roomId !== roomId);
      await kv.set(REMOVED_KEY, notices);
      removed = notices;
    },
  };
}
