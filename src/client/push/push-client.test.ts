import { describe, expect, it } from 'vitest';
import type { ClientFrame, PushSubscriptionJson, Result } from '../../../protocol/index.ts';
import {
  MACHINE_PUSH_STATES,
  PUSH_CLIENT_KEY,
  PUSH_ERRORS,
  makePushClient,
  type PairedRoom,
  type PushKv,
  type PushPlatform,
} from './push-client.ts';
import { PUSH_ACTIVITY_KEY, PUSH_SETTINGS_KEY } from '../../../page-worker/store-layout.ts';

// The browser's push APIs are scripted here (there is no push service on this machine); the real
// APIs and the real relay are driven in e2e/push-*.spec.ts.
const KEY_A = 'B' + 'A'.repeat(86); // shapes only: the platform below does not check them
const KEY_B = 'B' + 'Q'.repeat(86);

function memoryKv(initial: Record<string, unknown> = {}) {
  const data = new Map<string, unknown>(Object.entries(initial));
  const kv: PushKv = {
    get: <T>(k: string) => Promise.resolve(structuredClone(data.get(k)) as T | undefined),
    set: (k, v) => {
      data.set(k, structuredClone(v));
      return Promise.resolve();
    },
  };
  return { kv, data };
}

function scriptedPlatform(permissionAnswer: NotificationPermission = 'granted') {
  let permission: NotificationPermission = 'default';
  let current: { json: PushSubscriptionJson; applicationServerKey: string } | null = null;
  let n = 0;
  const calls: string[] = [];
  const platform: PushPlatform = {
    supported: () => true,
    permission: () => permission,
    requestPermission: () => {
      calls.push('requestPermission');
      permission = permissionAnswer;
      return Promise.resolve(permission);
    },
    getSubscription: () => Promise.resolve(current),
    subscribe: (key) => {
      calls.push('subscribe');
      const json = {
        endpoint: `https://push.example/ep-${++n}`,
        keys: { p256dh: 'p', auth: 'a' },
      };
      current = { json, applicationServerKey: keyOf(key) };
      return Promise.resolve(json);
    },
    unsubscribe: () => {
      calls.push('unsubscribe');
      current = null;
      return Promise.resolve();
    },
  };
  return {
    platform,
    calls,
    /** The browser replaced the subscription on its own (pushsubscriptionchange). */
    rotate: () => {
      current = null;
    },
  };
}
const keyOf = (bytes: Uint8Array) => (bytes[1] === 0 ? KEY_A : KEY_B);

function harness(options: {
  rooms: PairedRoom[];
  keys?: Record<string, Result<string, string>>;
  joined?: string[];
  permission?: NotificationPermission;
  kv?: Record<string, unknown>;
}) {
  const { kv, data } = memoryKv(options.kv);
  const platform = scriptedPlatform(options.permission);
  const sent: ClientFrame[] = [];
  const joined = new Set(options.joined ?? options.rooms.map((r) => r.roomId));
  const vapidFetches: string[] = [];
  const client = makePushClient({
    platform: platform.platform,
    kv,
    rooms: () => options.rooms,
    fetchVapid: (relay) => {
      vapidFetches.push(relay);
      return Promise.resolve(options.keys?.[relay] ?? { ok: true, value: KEY_A });
    },
    send: (roomId, frame) => {
      if (!joined.has(roomId)) return false;
      sent.push(frame);
      return true;
    },
    now: () => 1_000,
  });
  return { client, platform, sent, joined, data, vapidFetches, kv };
}

const laptop = { roomId: 'room-laptop-0001', relay: 'wss://relay.example' };
const desktop = { roomId: 'room-desktop-001', relay: 'wss://relay.example' };

describe('N2: enabling notifications from a tap', () => {
  it('permission first, then the relay key, subscribe, and push-subscribe for every paired room', async () => {
    const h = harness({ rooms: [laptop, desktop] });
    await h.client.start();
    expect(h.sent).toEqual([]); // nothing happens before the tap
    await h.client.enable();
    expect(h.platform.calls).toEqual(['requestPermission', 'subscribe']);
    expect(h.vapidFetches).toEqual(['wss://relay.example']);
    expect(h.sent.map((f) => [f.kind, 'room' in f && f.room])).toEqual([
      ['push-subscribe', laptop.roomId],
      ['push-subscribe', desktop.roomId],
    ]);
    expect(h.client.state().machines[laptop.roomId]?.state).toBe(MACHINE_PUSH_STATES.subscribed);
    expect(h.client.state().enabled).toBe(true);
  });

  it('a room whose socket is not joined right now is pending until its next hello (D7)', async () => {
    const h = harness({ rooms: [laptop, desktop], joined: [laptop.roomId] });
    await h.client.enable();
    expect(h.client.state().machines[desktop.roomId]?.state).toBe(MACHINE_PUSH_STATES.pending);
    h.joined.add(desktop.roomId);
    await h.client.onJoined(desktop.roomId);
    expect(h.client.state().machines[desktop.roomId]?.state).toBe(MACHINE_PUSH_STATES.subscribed);
    expect(h.sent.filter((f) => f.kind === 'push-subscribe')).toHaveLength(2);
  });

  it('permission denied or dismissed: a specific error, nothing subscribed or sent', async () => {
    for (const [answer, code] of [
      ['denied', PUSH_ERRORS.permissionDenied],
      ['default', PUSH_ERRORS.permissionDismissed],
    ] as const) {
      const h = harness({ rooms: [laptop], permission: answer });
      await h.client.enable();
      expect(h.client.state().error?.code).toBe(code);
      expect(h.platform.calls).toEqual(['requestPermission']);
      expect(h.sent).toEqual([]);
      expect(h.client.state().enabled).toBe(false);
    }
  });

  it('the relay key cannot be fetched: vapid-unreachable, not enabled', async () => {
    const h = harness({
      rooms: [laptop],
      keys: { [laptop.relay]: { ok: false, code: 'vapid-unreachable', message: 'down' } },
    });
    await h.client.enable();
    expect(h.client.state().error?.code).toBe(PUSH_ERRORS.vapidUnreachable);
    expect(h.client.state().enabled).toBe(false);
  });

  it('the browser refuses to subscribe: subscribe-failed, notifications stay off, nothing sent', async () => {
    const h = harness({ rooms: [laptop] });
    h.platform.platform.subscribe = () =>
      Promise.reject(new Error('AbortError: push service error'));
    await h.client.enable();
    expect(h.client.state()).toMatchObject({
      enabled: false,
      busy: false,
      error: { code: PUSH_ERRORS.subscribeFailed },
    });
    expect(h.data.get(PUSH_CLIENT_KEY)).toMatchObject({ enabled: false });
    expect(h.sent).toEqual([]);
  });

  it('a machine on a relay with another VAPID key is marked other-relay-key, the rest work', async () => {
    const far = { roomId: 'room-far-000001', relay: 'wss://other.example' };
    const h = harness({
      rooms: [laptop, far],
      keys: { [far.relay]: { ok: true, value: KEY_B } },
    });
    await h.client.enable();
    expect(h.client.state().machines[laptop.roomId]?.state).toBe(MACHINE_PUSH_STATES.subscribed);
    expect(h.client.state().machines[far.roomId]).toMatchObject({
      state: MACHINE_PUSH_STATES.failed,
      error: { code: PUSH_ERRORS.otherRelayKey },
    });
    expect(h.sent.every((f) => 'room' in f && f.room === laptop.roomId)).toBe(true);
  });
});

describe('N2: re-subscribe on every start and when the browser replaces the subscription', () => {
  it('a new app start re-sends push-subscribe after each hello, without asking again', async () => {
    const first = harness({ rooms: [laptop] });
    await first.client.enable();
    const saved = Object.fromEntries(first.data);
    const h = harness({ rooms: [laptop], kv: saved });
    // The browser keeps the permission and the subscription across starts.
    await h.platform.platform.requestPermission();
    await h.platform.platform.subscribe(new Uint8Array([4, 0]));
    h.platform.calls.length = 0;
    await h.client.start();
    await h.client.onJoined(laptop.roomId);
    expect(h.platform.calls).toEqual([]);
    expect(h.sent.filter((f) => f.kind === 'push-subscribe').length).toBeGreaterThanOrEqual(1);
  });

  it('pushsubscriptionchange: the old endpoint is unsubscribed from every room, the new one subscribed', async () => {
    const h = harness({ rooms: [laptop, desktop] });
    await h.client.enable();
    const oldEndpoint = (h.sent[0] as { subscription: PushSubscriptionJson }).subscription.endpoint;
    h.sent.length = 0;
    h.platform.rotate();
    await h.client.onSubscriptionChanged();
    expect(h.sent.map((f) => f.kind)).toEqual([
      'push-unsubscribe',
      'push-subscribe',
      'push-unsubscribe',
      'push-subscribe',
    ]);
    expect(h.sent[0]).toEqual({
      kind: 'push-unsubscribe',
      room: laptop.roomId,
      endpoint: oldEndpoint,
    });
    const fresh = (h.sent[1] as { subscription: PushSubscriptionJson }).subscription.endpoint;
    expect(fresh).not.toBe(oldEndpoint);
  });

  it('a replaced endpoint is removed from a room that was offline at the change, on its next hello', async () => {
    const h = harness({ rooms: [laptop, desktop] });
    await h.client.enable();
    h.joined.delete(desktop.roomId);
    h.platform.rotate();
    await h.client.onSubscriptionChanged();
    h.sent.length = 0;
    h.joined.add(desktop.roomId);
    await h.client.onJoined(desktop.roomId);
    expect(h.sent.map((f) => f.kind)).toEqual(['push-unsubscribe', 'push-subscribe']);
    // …and only once.
    h.sent.length = 0;
    await h.client.onJoined(desktop.roomId);
    expect(h.sent.map((f) => f.kind)).toEqual(['push-subscribe']);
  });
});

describe('N2: forgetting, last push, privacy setting', () => {
  it('forgetting a machine sends push-unsubscribe for its room', async () => {
    const h = harness({ rooms: [laptop, desktop] });
    await h.client.enable();
    h.sent.length = 0;
    expect(h.client.forget(laptop.roomId)).toBe(true);
    expect(h.sent).toEqual([
      { kind: 'push-unsubscribe', room: laptop.roomId, endpoint: expect.stringMatching(/^https:/) },
    ]);
    expect(h.client.state().machines[laptop.roomId]).toBeUndefined();
  });

  // The relay's receipts reach the phone inside the machine's sealed machine.status
  // (pushReceipt); they are tested in receipt.test.ts and NotificationsSettings.test.tsx.
  it('the last push is shown per machine', async () => {
    const h = harness({
      rooms: [laptop],
      kv: { [PUSH_ACTIVITY_KEY]: { [laptop.roomId]: { at: 500, kind: 'approval' } } },
    });
    await h.client.start();
    expect(h.client.state().machines[laptop.roomId]?.lastPush).toEqual({
      at: 500,
      kind: 'approval',
    });
  });

  it('lock-screen privacy is off by default and stored where the worker reads it', async () => {
    const h = harness({ rooms: [laptop] });
    await h.client.start();
    expect(h.client.state().settings.showSessionTitle).toBe(false);
    await h.client.setShowSessionTitle(true);
    expect(h.data.get(PUSH_SETTINGS_KEY)).toEqual({ showSessionTitle: true, language: 'en' });
  });

  it('turning notifications off unsubscribes every room and the browser', async () => {
    const h = harness({ rooms: [laptop] });
    await h.client.enable();
    h.sent.length = 0;
    await h.client.disable();
    expect(h.sent.map((f) => f.kind)).toEqual(['push-unsubscribe']);
    expect(h.platform.calls.at(-1)).toBe('unsubscribe');
    expect(h.data.get(PUSH_CLIENT_KEY)).toMatchObject({ enabled: false, endpoint: null });
  });
});
