import {
  fromBase64Url,
  open,
  parsePhoneMessage,
  roomKeys,
  type MachineMessage,
  type PhoneMessage,
  type PhoneSealed,
} from '../../protocol/index.ts';
import { statement } from '../../device/lane/sqlite.ts';
import type { Log } from '../log.ts';
import { makeFrameSealer } from '../wire/outbound.ts';
import type { RelayLink, RelayLinkEvents } from './relay-link.ts';
import type { Store } from '../sessions/store.ts';
import type { Timers, TimerHandle } from '../timers.ts';

// E6.4: the rooms a revoke left. The machine stays in each only to hand a phone that was away its
// `room.rotate` again: there it acts on nothing but `phone.register` from a registered,
// non-revoked phone whose box key matches, and sends nothing but that phone's `room.rotate` — no
// status, no snapshot, no push. After RETIRED_ROOM_KEEP_MS a room is left for good (a phone away
// longer must be paired again). Kept in the store, so a restart rejoins them.

export const RETIRED_ROOM_KEEP_MS = 30 * 24 * 60 * 60_000;
/** Revokes in a row each leave a room; past this many the oldest is left early. */
export const MAX_RETIRED_ROOMS = 16;
/** How often expired rooms are looked for (each message checks its room's age too). */
export const RETIRED_SWEEP_MS = 60 * 60_000;

type Row = { secret: string; next_secret: string; retired_at: number };
type Room = { secret: string; roomId: string; retiredAt: number; link: RelayLink };

export type RetiredRooms = ReturnType<typeof makeRetiredRooms>;

export function makeRetiredRooms(o: {
  store: Store;
  timers: Timers;
  log: Log;
  /** A link to the relay for this room (joined as machine). */
  openLink(roomId: string, events: RelayLinkEvents): RelayLink;
  /** The `room.rotate` for a phone that has not moved yet, or why there is none. */
  rotateFor(phoneId: string, boxKey: string): MachineMessage | string;
  /** E9: opens a sealed message (null when it proves nothing). */
  unseal(m: PhoneSealed): PhoneMessage | null;
  keepMs?: number;
}) {
  const keepMs = o.keepMs ?? RETIRED_ROOM_KEEP_MS;
  const db = o.store.db;
  const q = {
    all: statement<[], Row>(db, 'SELECT * FROM retired_rooms ORDER BY retired_at'),
    get: statement<[string], Row>(db, 'SELECT * FROM retired_rooms WHERE secret = ?'),
    insert: db.prepare(
      'INSERT OR REPLACE INTO retired_rooms (secret, next_secret, retired_at) VALUES (?, ?, ?)',
    ),
    drop: db.prepare('DELETE FROM retired_rooms WHERE secret = ?'),
    clear: db.prepare('DELETE FROM retired_rooms'),
  };
  const rooms = new Map<string, Room>();
  let sweepTimer: TimerHandle | null = null;

  function leave(room: Room, why: string): void {
    rooms.delete(room.roomId);
    o.store.write('forget a retired room', () => q.drop.run(room.secret));
    void room.link.close();
    o.log('info', 'retired-room-left', `left room ${room.roomId.slice(0, 8)}: ${why}`);
  }

  function eventsFor(room: Omit<Room, 'link'>, key: Uint8Array): RelayLinkEvents {
    const sealer = makeFrameSealer(room.roomId, key);
    const ignore = (what: string) =>
      o.log('info', 'retired-room-ignored', `${what} in retired room ${room.roomId.slice(0, 8)}`);
    return {
      helloOk() {},
      presence() {},
      down() {},
      relayError: (f) => o.log('warn', `relay-${f.code}`, f.message ?? f.code),
      msg(payload) {
        const live = rooms.get(room.roomId);
        if (live === undefined) return;
        if (o.timers.now() - room.retiredAt > keepMs) return leave(live, 'older than 30 days');
        const opened = open(payload, key);
        if (!opened.ok) return ignore('a frame that did not open');
        const parsed = parsePhoneMessage(opened.value);
        // E9: an app in identity mode seals its register; the box proves it is that phone.
        const value = !parsed.ok
          ? undefined
          : parsed.value.type === 'phone.sealed'
            ? (o.unseal(parsed.value) ?? undefined)
            : parsed.value;
        if (value === undefined || value.type !== 'phone.register') {
          return ignore(value?.type ?? 'an invalid message');
        }
        const reply = o.rotateFor(value.phoneId, value.boxKey);
        if (typeof reply === 'string') return ignore(`phone.register (${reply})`);
        const frame = sealer.frame(reply);
        if (frame !== null) live.link.send(frame);
        o.log('info', 'late-phone-rotated', `handed a late phone its room.rotate again`);
      },
    };
  }

  function attach(row: Row, link?: RelayLink): void {
    const bytes = fromBase64Url(row.secret);
    if (bytes === null) return;
    const { roomId, key } = roomKeys(bytes);
    const room = { secret: row.secret, roomId, retiredAt: row.retired_at };
    const events = eventsFor(room, key);
    if (link !== undefined) link.retarget(events);
    rooms.set(roomId, { ...room, link: link ?? o.openLink(roomId, events) });
  }

  function sweep(): void {
    for (const room of [...rooms.values()]) {
      if (o.timers.now() - room.retiredAt > keepMs) leave(room, 'older than 30 days');
    }
    sweepTimer = o.timers.setTimeout(sweep, RETIRED_SWEEP_MS);
  }

  return {
    /** The secret a finished revoke replaced `secret` with (recovery after a crash mid-revoke). */
    nextOf: (secret: string): string | undefined => q.get.get(secret)?.next_secret,
    /** Inside the revoke's store transaction: `secret` is retired in favour of `next`. */
    record(secret: string, next: string): void {
      q.insert.run(secret, next, o.timers.now());
    },
    /** `--re-pair`: every phone pairs again, so no room is kept for late ones. */
    forgetAll(): void {
      o.store.write('forget retired rooms', () => q.clear.run());
    },
    /** At start: rejoin every room still within its 30 days, forget the others. */
    openSaved(): void {
      for (const row of q.all.all()) {
        if (o.timers.now() - row.retired_at > keepMs) {
          o.store.write('forget a retired room', () => q.drop.run(row.secret));
        } else attach(row);
      }
      sweep();
    },
    /** After a revoke: the current room's link stays, now answering as a retired room. */
    adopt(secret: string, link: RelayLink): void {
      const row = q.get.get(secret);
      if (row === undefined) {
        void link.close();
        return;
      }
      attach(row, link);
      const all = [...rooms.values()].sort((a, b) => a.retiredAt - b.retiredAt);
      for (const room of all.slice(0, Math.max(0, all.length - MAX_RETIRED_ROOMS))) {
        leave(room, `more than ${MAX_RETIRED_ROOMS} retired rooms`);
      }
    },
    roomIds: (): string[] => [...rooms.keys()],
    async close(): Promise<void> {
      if (sweepTimer !== null) o.timers.clearTimeout(sweepTimer);
      await Promise.all([...rooms.values()].map((r) => r.link.close()));
      rooms.clear();
    },
  };
}
