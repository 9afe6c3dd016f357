import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_PHONES,
  roomKeys,
  seal,
  toBase64Url,
  type PhoneRegister,
} from '../../protocol/index.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { captureLog } from '../log.ts';
import { makePhones } from './phones.ts';
import type { RelayLink, RelayLinkEvents } from '../links/relay-link.ts';
import {
  MAX_RETIRED_ROOMS,
  RETIRED_ROOM_KEEP_MS,
  RETIRED_SWEEP_MS,
  makeRetiredRooms,
} from '../links/retired-rooms.ts';
import { makeTestStore } from '../test-support/store.ts';

// E6 bounds on the machine: how many phones it keeps, how many rooms a run of revokes leaves
// behind, and how long such a room still answers. Real store (SQLite in a temp state dir); the
// relay links are recorders, because these rules are about what the machine keeps and sends.

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

const testStore = () => {
  const s = makeTestStore();
  cleanup.push(() => s.cleanup());
  return s;
};

const register = (i: number): PhoneRegister => ({
  v: 1,
  ts: 1,
  type: 'phone.register',
  requestId: `r-${i}`,
  phoneId: `phone-${String(i).padStart(3, '0')}`,
  name: `Phone ${i}`,
  boxKey: Buffer.alloc(32, i).toString('base64'),
});

describe('E6: the phones a machine keeps', () => {
  it(`E6: the ${MAX_PHONES + 1}th phone is refused with too-many-phones; a known phone still registers again`, () => {
    const phones = makePhones(testStore().store, () => 1_000);
    for (let i = 0; i < MAX_PHONES; i += 1) expect(phones.register(register(i)).ok).toBe(true);
    expect(phones.register(register(MAX_PHONES))).toMatchObject({
      ok: false,
      code: 'too-many-phones',
    });
    expect(phones.list()).toHaveLength(MAX_PHONES);
    expect(phones.register({ ...register(0), name: 'Renamed' })).toMatchObject({
      ok: true,
      created: false,
    });
  });
});

type Recorded = { roomId: string; events: RelayLinkEvents; sent: string[]; closed: boolean };

function retiredWorld() {
  const s = testStore();
  const timers = makeManualTimers();
  const log = captureLog();
  const links: Recorded[] = [];
  const link = (roomId: string, events: RelayLinkEvents): RelayLink & { rec: Recorded } => {
    const rec: Recorded = { roomId, events, sent: [], closed: false };
    links.push(rec);
    return {
      rec,
      send: (text) => (rec.sent.push(text), true),
      retarget: (e) => void (rec.events = e),
      state: () => ({ connected: true, consecutiveFailures: 0, errorState: false }),
      close: async () => void (rec.closed = true),
    };
  };
  const rooms = makeRetiredRooms({
    store: s.store,
    timers,
    log,
    openLink: link,
    rotateFor: (phoneId) => ({ v: 1, ts: timers.now(), type: 'room.rotate', phoneId, box: 'x' }),
    unseal: () => null,
  });
  cleanup.push(() => void rooms.close());
  /** Retires a fresh room now, as a revoke does, and returns its secret and room id. */
  const retire = () => {
    const secret = toBase64Url(new Uint8Array(randomBytes(32)));
    s.store.write('retire', () => rooms.record(secret, 'next'));
    const own = roomKeys(Buffer.from(secret, 'base64url'));
    rooms.adopt(secret, link(own.roomId, {} as RelayLinkEvents));
    return { secret, roomId: own.roomId, key: own.key };
  };
  return { s, timers, log, links, rooms, retire };
}

describe('E6.4: the rooms a revoke leaves', () => {
  it(`E6.4: past ${MAX_RETIRED_ROOMS} retired rooms the oldest is left and forgotten`, () => {
    const w = retiredWorld();
    w.rooms.openSaved();
    const retired = Array.from({ length: MAX_RETIRED_ROOMS + 1 }, () => {
      const room = w.retire();
      w.timers.advance(1_000);
      return room;
    });
    expect(w.rooms.roomIds()).toHaveLength(MAX_RETIRED_ROOMS);
    expect(w.rooms.roomIds()).not.toContain(retired[0]!.roomId);
    expect(w.links.find((l) => l.roomId === retired[0]!.roomId)?.closed).toBe(true);
    expect(w.rooms.nextOf(retired[0]!.secret)).toBeUndefined();
    expect(w.rooms.nextOf(retired[1]!.secret)).toBe('next');
  });

  it('E6.4: a message in a retired room past its 30 days, before the hourly sweep, leaves the room and answers nothing', () => {
    const w = retiredWorld();
    w.rooms.openSaved();
    const room = w.retire();
    const rec = w.links.find((l) => l.roomId === room.roomId)!;
    // The sweep runs every hour from openSaved; the room turns 30 days old between two sweeps.
    w.timers.advance(RETIRED_ROOM_KEEP_MS - RETIRED_SWEEP_MS / 2);
    expect(w.rooms.roomIds()).toEqual([room.roomId]);
    w.timers.advance(RETIRED_SWEEP_MS / 4 + RETIRED_SWEEP_MS / 2);
    const late = seal(register(7), room.key);
    rec.events.msg(late);
    expect(rec.sent).toEqual([]);
    expect(rec.closed).toBe(true);
    expect(w.rooms.roomIds()).toEqual([]);
    expect(w.rooms.nextOf(room.secret)).toBeUndefined();
  });

  it('E6.4: within its 30 days a retired room hands a registered phone its room.rotate and acts on nothing else', () => {
    const w = retiredWorld();
    w.rooms.openSaved();
    const room = w.retire();
    const rec = w.links.find((l) => l.roomId === room.roomId)!;
    rec.events.msg(seal({ v: 1, ts: 1, type: 'sessions.get', requestId: 'q1' }, room.key));
    expect(rec.sent).toEqual([]);
    rec.events.msg(seal(register(7), room.key));
    expect(rec.sent).toHaveLength(1);
  });
});
