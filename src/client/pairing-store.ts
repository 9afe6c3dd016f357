import {
  parsePairing,
  parsePairingLink,
  roomKeys,
  type Pairing,
  type Result,
} from '../../protocol/index.ts';
import { PAIRINGS_KEY } from '../../page-worker/store-layout.ts';
import type { Kv } from './kv.ts';

// Paired machines and their secrets, kept only in IndexedDB under one key so a re-pair replaces
// a machine's secret in a single write. The service worker reads the same key to find the room
// keys that open a push (D6).

export type PairedMachine = {
  roomId: string;
  relay: string;
  machine: string;
  /** The pairing secret, base64url, exactly as in the pairing code. */
  secret: string;
  pairedAt: number;
};

export type PairingStore = {
  load(): Promise<PairedMachine[]>;
  list(): readonly PairedMachine[];
  /** Saves a confirmed pairing; a machine paired again (same relay and name) is replaced. */
  save(pairing: Pairing, now: number): Promise<{ paired: PairedMachine; replaced: string[] }>;
  forget(roomId: string): Promise<void>;
};

/** Reads a pasted code or a `#pair=` link; nothing is stored here. */
export function readPairingInput(input: string): Result<Pairing, string> {
  const text = input.trim();
  return text.includes('#pair=') ? parsePairingLink(text) : parsePairing(text);
}

export function makePairingStore(kv: Kv): PairingStore {
  let machines: PairedMachine[] = [];
  return {
    async load() {
      machines = (await kv.get<PairedMachine[]>(PAIRINGS_KEY)) ?? [];
      return machines;
    },
    list: () => machines,
    async save(pairing, now) {
      const { roomId } = roomKeys(pairing.secretBytes);
      const paired: PairedMachine = {
        roomId,
        relay: pairing.relay,
        machine: pairing.machine,
        secret: pairing.secret,
        pairedAt: now,
      };
      const replaced = machines
        .filter(
          (m) =>
            m.roomId === roomId || (m.relay === pairing.relay && m.machine === pairing.machine),
        )
        .map((m) => m.roomId);
      const next = [...machines.filter((m) => !replaced.includes(m.roomId)), paired];
      await kv.set(PAIRINGS_KEY, next);
      machines = next;
      return { paired, replaced };
    },
    async forget(roomId) {
      const next = machines.filter((m) => m.roomId !== roomId);
      await kv.set(PAIRINGS_KEY, next);
      machines = next;
    },
  };
}
