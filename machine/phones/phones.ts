import {
  boxKeyFingerprint,
  decodeBoxKey,
  MAX_PENDING_PHONES,
  MAX_PHONES,
  PENDING_PHONE_KEEP_MS,
  REVOKED_PHONE_KEEP_MS,
  type PhoneEntry,
  type PhoneRegister,
  type ReasonCode,
  type WebAuthnCredential,
} from '../../protocol/index.ts';
import { statement } from '../../device/lane/sqlite.ts';
import type { Store } from '../sessions/store.ts';

// E6: the phones of this machine, in the state dir's store. A phone's box key is fixed at its
// first registration and so is its WebAuthn credential (E7) once set: anyone holding the room
// secret can send `phone.register` with any phoneId, and letting a later registration replace
// either would hand that sender the next `room.rotate` or a credential it controls. A revoked
// phone stays listed (revoked) and can never register again under its id, until it is forgotten.
// E9: a phone is `approved` or `pending`; the first phone of a machine is approved, any later one
// waits for the owner. At most MAX_PENDING_PHONES wait at once, each for PENDING_PHONE_KEEP_MS;
// a revoked phone is forgotten REVOKED_PHONE_KEEP_MS after its revoke (sweep(), by the clock).

export const PHONE_REGISTER_ERRORS = {
  'phone-revoked': 'phone-revoked',
  'box-key-mismatch': 'box-key-mismatch',
  'credential-fixed': 'credential-fixed',
  'credential-taken': 'credential-taken',
  'too-many-phones': 'too-many-phones',
  'too-many-pending': 'too-many-pending',
  'store-failed': 'store-failed',
} as const;
export type PhoneRegisterError = keyof typeof PHONE_REGISTER_ERRORS;

export type RegisterResult =
  | { ok: true; changed: boolean; created: boolean; pending: boolean }
  | { ok: false; code: PhoneRegisterError; reason?: ReasonCode; message: string };

export type StoredPhone = PhoneEntry & {
  state: 'approved' | 'pending' | 'revoked';
  boxKey: string;
  credential?: WebAuthnCredential;
  signCount: number;
};

type Row = {
  phone_id: string;
  name: string;
  box_key: string;
  first_seen: number;
  last_seen: number;
  revoked_at: number | null;
  credential: string | null;
  sign_count: number;
  state: 'approved' | 'pending';
};

/** A phone action's lastSeen is written at most this often (a store write per action is waste). */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

const fromRow = (r: Row): StoredPhone => ({
  phoneId: r.phone_id,
  name: r.name,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
  revoked: r.revoked_at !== null,
  presence: r.credential !== null,
  state: r.revoked_at !== null ? 'revoked' : r.state,
  boxKey: r.box_key,
  ...(r.credential !== null ? { credential: JSON.parse(r.credential) as WebAuthnCredential } : {}),
  signCount: r.sign_count,
});

export const toEntry = (p: StoredPhone): PhoneEntry => ({
  phoneId: p.phoneId,
  name: p.name,
  firstSeen: p.firstSeen,
  lastSeen: p.lastSeen,
  revoked: p.revoked,
  presence: p.presence,
  state: p.state,
  fingerprint: fingerprintOf(p.boxKey),
});

/** E9: the short fingerprint of a stored box key (what the desk prints and `phones` carries). */
export function fingerprintOf(boxKey: string): string {
  const key = decodeBoxKey(boxKey);
  return key === null ? '????-????-????-????' : boxKeyFingerprint(key);
}

export type Phones = ReturnType<typeof makePhones>;

export function makePhones(store: Store, now: () => number) {
  const db = store.db;
  const q = {
    all: statement<[], Row>(db, 'SELECT * FROM phones ORDER BY first_seen, phone_id'),
    get: statement<[string], Row>(db, 'SELECT * FROM phones WHERE phone_id = ?'),
    byCredential: statement<[string], Row>(db, 'SELECT * FROM phones WHERE credential_id = ?'),
    count: statement<[], { n: number }>(db, 'SELECT COUNT(*) AS n FROM phones'),
    countIn: statement<[string], { n: number }>(
      db,
      'SELECT COUNT(*) AS n FROM phones WHERE state = ? AND revoked_at IS NULL',
    ),
    insert: db.prepare(
      `INSERT INTO phones (phone_id, name, box_key, first_seen, last_seen, credential_id, credential,
       state) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    approve: db.prepare(
      `UPDATE phones SET state = 'approved' WHERE phone_id = ? AND state = 'pending'
       AND revoked_at IS NULL`,
    ),
    forget: db.prepare('DELETE FROM phones WHERE phone_id = ?'),
    forgetAll: db.prepare('DELETE FROM phones'),
    sweep: db.prepare(
      `DELETE FROM phones WHERE (state = 'pending' AND revoked_at IS NULL AND first_seen <= ?)
       OR (revoked_at IS NOT NULL AND revoked_at <= ?)`,
    ),
    update: db.prepare(
      `UPDATE phones SET name = ?, last_seen = ?, credential_id = ?, credential = ?
       WHERE phone_id = ?`,
    ),
    seen: db.prepare('UPDATE phones SET last_seen = ? WHERE phone_id = ?'),
    revoke: db.prepare(
      'UPDATE phones SET revoked_at = ? WHERE phone_id = ? AND revoked_at IS NULL',
    ),
    signCount: db.prepare('UPDATE phones SET sign_count = ? WHERE phone_id = ?'),
  };
  const get = (phoneId: string): StoredPhone | undefined => {
    const r = q.get.get(phoneId);
    return r === undefined ? undefined : fromRow(r);
  };
  const refuse = (code: PhoneRegisterError, message: string, reason?: ReasonCode) =>
    ({ ok: false, code, message, ...(reason ? { reason } : {}) }) as const;

  const count = (state: 'approved' | 'pending') => q.countIn.get(state)!.n;

  return {
    get,
    list: (): StoredPhone[] => q.all.all().map(fromRow),
    /** E9: approved and not revoked — the phones a rotation boxes the new secret to. */
    remaining: (): StoredPhone[] =>
      q.all
        .all()
        .map(fromRow)
        .filter((p) => p.state === 'approved'),
    /** E9: identity mode — some phone is approved; from then on only sealed messages count. */
    identityMode: (): boolean => count('approved') > 0,
    /** E9: let a pending phone in; false when it was not pending. */
    approve(phoneId: string): boolean {
      let changed = 0;
      const ok = store.write(
        'approve a phone',
        () => {
          changed = q.approve.run(phoneId).changes;
        },
        { durable: true },
      );
      return ok && changed > 0;
    },
    /** E9: drop a phone's record (the desk's `phones forget`); false when there was none. */
    forget(phoneId: string): boolean {
      let changed = 0;
      const ok = store.write('forget a phone', () => {
        changed = q.forget.run(phoneId).changes;
      });
      return ok && changed > 0;
    },
    /** E9: `--re-pair` — every phone pairs again. */
    forgetAll(): void {
      store.write('forget every phone', () => q.forgetAll.run(), { durable: true });
    },
    /** E9: forget pending phones older than an hour and revoked ones older than 30 days. */
    sweep(): number {
      let changed = 0;
      const t = now();
      store.write('forget old phones', () => {
        changed = q.sweep.run(t - PENDING_PHONE_KEEP_MS, t - REVOKED_PHONE_KEEP_MS).changes;
      });
      return changed;
    },
    byCredential(credentialId: string): StoredPhone | undefined {
      const r = q.byCredential.get(credentialId);
      return r === undefined ? undefined : fromRow(r);
    },
    /**
     * `pending` (E9): a new phone waits for the owner (identity mode); ignored for a known one.
     */
    register(m: PhoneRegister, o: { pending: boolean } = { pending: false }): RegisterResult {
      const t = now();
      const old = get(m.phoneId);
      const cred = m.webauthn;
      if (old?.revoked) {
        return refuse('phone-revoked', 'this phone was removed from the machine', 'phone-revoked');
      }
      if (old !== undefined && old.boxKey !== m.boxKey) {
        return refuse(
          'box-key-mismatch',
          'this phone id is registered with another box key; pair again to register anew',
        );
      }
      if (cred !== undefined && old?.credential !== undefined) {
        if (JSON.stringify(old.credential) !== JSON.stringify(cred)) {
          return refuse(
            'credential-fixed',
            'this phone already has a presence credential; revoke the phone and pair again to change it',
            'presence-invalid',
          );
        }
      }
      if (cred !== undefined) {
        const holder = q.byCredential.get(cred.credentialId);
        if (holder !== undefined && holder.phone_id !== m.phoneId) {
          return refuse(
            'credential-taken',
            'this credential is registered for another phone',
            'presence-invalid',
          );
        }
      }
      if (old === undefined && q.count.get()!.n >= MAX_PHONES) {
        return refuse('too-many-phones', `a machine keeps at most ${MAX_PHONES} phones`);
      }
      if (old === undefined && o.pending && count('pending') >= MAX_PENDING_PHONES) {
        return refuse(
          'too-many-pending',
          `${MAX_PENDING_PHONES} phones wait for the owner already; approve or forget one first`,
          'phone-pending',
        );
      }
      const state = old?.state ?? (o.pending ? 'pending' : 'approved');
      const credential = cred ?? old?.credential;
      const credText = credential === undefined ? null : JSON.stringify(credential);
      const credId = credential?.credentialId ?? null;
      const changed =
        old === undefined || old.name !== m.name || (cred !== undefined && !old.presence);
      const written = store.write(
        'register a phone',
        () => {
          if (old === undefined) {
            q.insert.run(m.phoneId, m.name, m.boxKey, t, t, credId, credText, state);
          } else {
            q.update.run(m.name, t, credId, credText, m.phoneId);
          }
        },
        { durable: true },
      );
      if (!written) return refuse('store-failed', 'the machine could not record the phone');
      return { ok: true, changed, created: old === undefined, pending: state === 'pending' };
    },
    /** lastSeen for an action of a registered phone, written at most once a minute. */
    seen(phoneId: string): void {
      const p = get(phoneId);
      if (p === undefined || now() - p.lastSeen < LAST_SEEN_RESOLUTION_MS) return;
      store.write('note when a phone was seen', () => q.seen.run(now(), phoneId));
    },
    /** Marks revoked (durably); false when it was not a registered, non-revoked phone. */
    revoke(phoneId: string, also: () => void = () => {}): boolean {
      let changed = 0;
      const ok = store.write(
        'revoke a phone',
        () => {
          changed = q.revoke.run(now(), phoneId).changes;
          if (changed > 0) also();
        },
        { durable: true },
      );
      return ok && changed > 0;
    },
    /** E7: the counter of the last accepted assertion. */
    setSignCount(phoneId: string, count: number): boolean {
      return store.write('remember a signature counter', () => q.signCount.run(count, phoneId), {
        durable: true,
      });
    },
  };
}
