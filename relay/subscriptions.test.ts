// H2: the subscription store is bounded — per IP and in total (N stored, N+1 refused with
// limit), and an entry lives only while a machine keeps coming to its room (joined within
// --subscription-machine-days, or within the grace for a room no machine ever joined). Runs in
// both projects: `node` (SQLite) and `[redis]` (the Redis store, its own key prefix per test).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { describe, expect, it } from 'vitest';
import { makeFakeSubscriber, type FakePushService } from './test-support/fake-push-service.ts';
import { pushFixtures } from './test-support/push-fixture.ts';
import { newRoom, type Fixture } from './test-support/relay-fixture.ts';
import type { TestClient } from './test-support/ws-client.ts';
import { openSqliteSubscriptions } from './subscriptions.ts';

const DAY_MS = 86_400_000;
// No ping while the clock moves by days: sockets open across a jump would miss their pongs.
const setup = pushFixtures({ trustProxy: true, pingIntervalMs: 1_000 * DAY_MS });
const pushMsg = (room: string) =>
  JSON.stringify({ kind: 'msg', room, payload: 'bXNn', push: { payload: 'UFVTSA==' } });

/** A fresh client address, so entries of other tests sharing a Redis never count. */
const freshIp = () =>
  `2001:db8:${crypto.randomBytes(2).toString('hex')}:${crypto.randomBytes(2).toString('hex')}::1`;
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

/** A phone socket from `ip` joined to `rooms`. */
async function phoneFrom(f: Fixture, ip: string, ...rooms: string[]): Promise<TestClient> {
  const p = await f.client(from(ip));
  for (const r of rooms) await p.hello(r, 'phone');
  return p;
}
function subscribe(p: TestClient, room: string, svc: FakePushService, id: string) {
  p.send({
    kind: 'push-subscribe',
    room,
    subscription: makeFakeSubscriber(svc.endpoint(id)).subscription,
  });
}
/** Waits until the relay has read and stored everything `p` sent, and asserts no reply came. */
async function settledQuietly(f: Fixture, p: TestClient, room: string) {
  await p.hello(room, 'phone');
  await f.relay.idle();
  await p.expectNoFrame(0);
}
/** The paths a push from a fresh machine socket in `room` reaches, or the error it gets. */
async function pushFrom(f: Fixture, svc: FakePushService, room: string, n: number) {
  const m = await f.client();
  await m.hello(room, 'machine');
  m.send(pushMsg(room));
  if (n === 0) return (await m.nextFrame('error')).code;
  const paths: string[] = [];
  for (let i = 0; i < n; i++) paths.push((await svc.nextRequest()).path);
  await f.relay.idle();
  await m.expectNoFrame(0);
  await m.close();
  return paths.sort();
}

describe('H2: push subscriptions per IP', () => {
  it('3 from one IP over two rooms are stored, a 4th gets limit; refreshing, another IP and a freed place still work', async () => {
    const { f, svc } = await setup({ maxSubscriptionsPerIp: 3 });
    const [r1, r2] = [newRoom(), newRoom()];
    const ip = freshIp();
    const p = await phoneFrom(f, ip, r1, r2);
    subscribe(p, r1, svc, `${r1}-a`);
    subscribe(p, r1, svc, `${r1}-b`);
    subscribe(p, r2, svc, `${r2}-c`);
    await settledQuietly(f, p, r1);
    subscribe(p, r2, svc, `${r2}-d`);
    expect(await p.nextFrame('error')).toEqual({
      kind: 'error',
      code: 'limit',
      message: 'at most 3 push subscriptions per IP',
    });
    subscribe(p, r1, svc, `${r1}-a`); // a refresh is never refused
    const q = await phoneFrom(f, freshIp(), r2);
    subscribe(q, r2, svc, `${r2}-e`);
    await settledQuietly(f, q, r2);
    await settledQuietly(f, p, r1);
    // The count follows deletions: one removed, one more fits.
    p.send({ kind: 'push-unsubscribe', room: r1, endpoint: svc.endpoint(`${r1}-b`) });
    subscribe(p, r2, svc, `${r2}-d`);
    await settledQuietly(f, p, r2);
    await p.close();
    await q.close();
    expect(await pushFrom(f, svc, r2, 3)).toEqual([
      `/push/${r2}-c`,
      `/push/${r2}-d`,
      `/push/${r2}-e`,
    ]);
    expect(await pushFrom(f, svc, r1, 1)).toEqual([`/push/${r1}-a`]);
    expect(f.logs.text()).toContain('push subscription cap per IP reached');
  });
});

describe('H2: push subscriptions in total', () => {
  it('3 are stored, a 4th gets limit whatever its IP; after a removal one fits again', async () => {
    const { f, svc } = await setup({ maxSubscriptions: 3 });
    const room = newRoom();
    const phones = [];
    for (let i = 0; i < 3; i++) {
      const p = await phoneFrom(f, freshIp(), room);
      subscribe(p, room, svc, `${room}-${i}`);
      await settledQuietly(f, p, room);
      phones.push(p);
    }
    const late = await phoneFrom(f, freshIp(), room);
    subscribe(late, room, svc, `${room}-late`);
    expect(await late.nextFrame('error')).toEqual({
      kind: 'error',
      code: 'limit',
      message: 'this relay holds its maximum of 3 push subscriptions',
    });
    phones[0]?.send({ kind: 'push-unsubscribe', room, endpoint: svc.endpoint(`${room}-0`) });
    await settledQuietly(f, phones[0] as TestClient, room);
    subscribe(late, room, svc, `${room}-late`);
    await settledQuietly(f, late, room);
    for (const p of [...phones, late]) await p.close();
    expect(await pushFrom(f, svc, room, 3)).toEqual(
      [`/push/${room}-1`, `/push/${room}-2`, `/push/${room}-late`].sort(),
    );
    expect(f.logs.text()).toContain('push subscription cap of the relay reached');
  });
});

describe('H2: a subscription lives only while a machine keeps coming to its room', () => {
  /** Subscribes while a machine is in the room (it counts as seen then); the phone leaves, and
   * the machine too unless `stay`. */
  async function seenRoom(f: Fixture, svc: FakePushService, stay = false) {
    const room = newRoom();
    const m = await f.client();
    await m.hello(room, 'machine');
    const p = await phoneFrom(f, freshIp(), room);
    subscribe(p, room, svc, room);
    await settledQuietly(f, p, room);
    await p.close();
    if (!stay) await m.close();
    return { room, machine: m };
  }
  /** A phone refreshes the subscription (push-subscribe again) with no machine around. */
  async function refresh(f: Fixture, svc: FakePushService, room: string) {
    const p = await phoneFrom(f, freshIp(), room);
    subscribe(p, room, svc, room);
    await settledQuietly(f, p, room);
    await p.close();
  }
  /** Moves the clock and lets the sweep it started finish. */
  async function advance(f: Fixture, ms: number) {
    f.timers.advance(ms);
    await f.relay.idle();
  }

  it('no machine joined for 60 days: the room loses it although phones refreshed it', async () => {
    const { f, svc } = await setup();
    const { room } = await seenRoom(f, svc);
    await advance(f, 30 * DAY_MS);
    await refresh(f, svc, room);
    await advance(f, 29 * DAY_MS);
    await refresh(f, svc, room);
    await advance(f, DAY_MS + 3_600_000);
    expect(await pushFrom(f, svc, room, 0)).toBe('push-no-subscribers');
    expect(f.logs.lines()).toContainEqual(
      expect.objectContaining({ msg: 'expired push subscriptions', machineAbsent: 1 }),
    );
  });

  it('a machine that joined on day 30 keeps it past day 60', async () => {
    const { f, svc } = await setup();
    const { room } = await seenRoom(f, svc);
    await advance(f, 30 * DAY_MS);
    const m = await f.client();
    await m.hello(room, 'machine');
    await m.close();
    await advance(f, 29 * DAY_MS);
    await refresh(f, svc, room);
    await advance(f, DAY_MS + 3_600_000);
    expect(await pushFrom(f, svc, room, 1)).toEqual([`/push/${room}`]);
  });

  it('a machine connected the whole time keeps it past day 60 (each sweep counts it as seen)', async () => {
    // Refreshes would not expire within the test: only the machine rule applies.
    const { f, svc } = await setup({ subscriptionTtlDays: 365 });
    const { room, machine: m } = await seenRoom(f, svc, true);
    await advance(f, 61 * DAY_MS);
    m.send(pushMsg(room));
    expect((await svc.nextRequest()).path).toBe(`/push/${room}`);
  });

  it('a room no machine ever joined keeps it only for the grace; a machine within the grace keeps it', async () => {
    const { f, svc } = await setup({ subscriptionGraceSec: 600 });
    const [lonely, visited] = [newRoom(), newRoom()];
    const p = await phoneFrom(f, freshIp(), lonely, visited);
    subscribe(p, lonely, svc, lonely);
    subscribe(p, visited, svc, visited);
    await settledQuietly(f, p, lonely);
    await p.close();
    await advance(f, 300_000);
    const m = await f.client();
    await m.hello(visited, 'machine');
    await m.close();
    await advance(f, 300_000);
    // 600 s: the sweep keeps an entry exactly as old as the grace.
    expect(f.logs.text()).not.toContain('expired push subscriptions');
    await advance(f, 600_000);
    expect(await pushFrom(f, svc, lonely, 0)).toBe('push-no-subscribers');
    expect(await pushFrom(f, svc, visited, 1)).toEqual([`/push/${visited}`]);
    expect(f.logs.lines()).toContainEqual(
      expect.objectContaining({ msg: 'expired push subscriptions', neverMachine: 1 }),
    );
  });
});

describe('H2: a database written before H2 keeps its entries', () => {
  it('old rows count as seen by a machine at their last refresh', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-subs-migrate-'));
    try {
      const db = new DatabaseSync(path.join(dir, 'subscriptions.db'));
      db.exec(`CREATE TABLE subscriptions (
        room TEXT NOT NULL, endpoint TEXT NOT NULL, p256dh TEXT NOT NULL, auth TEXT NOT NULL,
        created_ms INTEGER NOT NULL, refreshed_ms INTEGER NOT NULL,
        PRIMARY KEY (room, endpoint)) WITHOUT ROWID`);
      db.prepare('INSERT INTO subscriptions VALUES (?, ?, ?, ?, ?, ?)').run(
        'r',
        'e',
        'p',
        'a',
        5,
        7,
      );
      db.close();
      const store = openSqliteSubscriptions(dir);
      const cut = { refreshedBeforeMs: 0, unseenBeforeMs: 100 };
      expect(store.expire({ ...cut, machineBeforeMs: 7 })).toEqual({
        stale: 0,
        machineAbsent: 0,
        neverMachine: 0,
      });
      expect(store.list('r')).toEqual([{ endpoint: 'e', p256dh: 'p', auth: 'a' }]);
      expect(store.expire({ ...cut, machineBeforeMs: 8 })).toMatchObject({ machineAbsent: 1 });
      store.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
