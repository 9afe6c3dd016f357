import {
  fromBase64Url,
  type ClientFrame,
  type PushSubscriptionJson,
  type Result,
} from '../../../protocol/index.ts';
import type { Language } from '../../../page-worker/language.ts';
import {
  DEFAULT_PUSH_SETTINGS,
  parsePushSettings,
  type PushActivity,
  type PushSettings,
} from '../../../page-worker/push-settings.ts';
import { PUSH_ACTIVITY_KEY, PUSH_SETTINGS_KEY } from '../../../page-worker/store-layout.ts';

// N2: notifications are enabled only from a tap in Settings — permission, then the
// relay's VAPID key, pushManager.subscribe, and push-subscribe for every paired room. The app
// re-subscribes on every start and after every hello (D7), moves rooms to a new endpoint when
// the browser replaces it, and unsubscribes a room when its machine is forgotten.

export const PUSH_ERRORS = {
  unsupported: 'unsupported',
  permissionDenied: 'permission-denied',
  permissionDismissed: 'permission-dismissed',
  vapidUnreachable: 'vapid-unreachable',
  vapidInvalid: 'vapid-invalid',
  badRelayUrl: 'bad-relay-url',
  subscribeFailed: 'subscribe-failed',
  /** One browser subscription has one VAPID key: a second relay with another key cannot push. */
  otherRelayKey: 'other-relay-key',
} as const;
export type PushErrorCode = (typeof PUSH_ERRORS)[keyof typeof PUSH_ERRORS];

export const MACHINE_PUSH_STATES = {
  off: 'off',
  /** Subscribed on this phone; push-subscribe goes out on the next hello for that room. */
  pending: 'pending',
  subscribed: 'subscribed',
  failed: 'failed',
} as const;
export type MachinePushState = (typeof MACHINE_PUSH_STATES)[keyof typeof MACHINE_PUSH_STATES];

export type MachinePush = {
  state: MachinePushState;
  error?: { code: PushErrorCode; message: string };
  lastPush?: PushActivity;
};

export type PushClientState = {
  permission: NotificationPermission | 'unsupported';
  enabled: boolean;
  busy: boolean;
  error?: { code: PushErrorCode; message: string };
  settings: PushSettings;
  machines: Record<string, MachinePush>;
};

export type PairedRoom = { roomId: string; relay: string };

/** The browser's push and permission APIs (browser-platform.ts), injected for tests. */
export type PushPlatform = {
  supported(): boolean;
  permission(): NotificationPermission | 'unsupported';
  requestPermission(): Promise<NotificationPermission>;
  getSubscription(): Promise<{
    json: PushSubscriptionJson;
    applicationServerKey: string | null;
  } | null>;
  subscribe(applicationServerKey: Uint8Array): Promise<PushSubscriptionJson>;
  unsubscribe(): Promise<void>;
};

export type PushKv = {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
};

export type PushClientDeps = {
  platform: PushPlatform;
  kv: PushKv;
  fetchVapid(relayUrl: string): Promise<Result<string, string>>;
  rooms(): readonly PairedRoom[];
  /** Sends on the app's socket for that room's relay; false when it is not joined right now. */
  send(roomId: string, frame: ClientFrame): boolean;
  now(): number;
};

/** Persisted — this module's own state across app starts, in the page's part of the shared store
 * (page-worker/store-layout.ts); the worker never reads it. */
export const PUSH_CLIENT_KEY = 'push-client';

type Persisted = {
  enabled: boolean;
  endpoint: string | null;
  applicationServerKey: string | null;
  /** Endpoints replaced by the browser, still to remove from each room on its next hello. */
  staleEndpoints: Record<string, string[]>;
};
const INITIAL: Persisted = {
  enabled: false,
  endpoint: null,
  applicationServerKey: null,
  staleEndpoints: {},
};

export type PushClient = {
  state(): PushClientState;
  /** This device's push endpoint while notifications are on (the app's forget unsubscribes it). */
  endpoint(): string | undefined;
  onChange(listener: () => void): () => void;
  /** Loads saved state and re-subscribes (every app start). */
  start(): Promise<void>;
  /** Call only from the user's tap (the browser requires it for the permission prompt). */
  enable(): Promise<void>;
  disable(): Promise<void>;
  /** The app's connection calls this after every hello-ok for a room (D7 refresh). */
  onJoined(roomId: string): Promise<void>;
  /** The worker saw the browser replace the subscription. */
  onSubscriptionChanged(): Promise<void>;
  /** Before a machine is forgotten (while its room is still joined): push-unsubscribe. */
  forget(roomId: string): boolean;
  /** F4: once a machine is forgotten, nothing of its room stays in this module's state. */
  forgetStored(roomId: string): Promise<void>;
  pushReceived(roomId: string, activity: PushActivity): void;
  setShowSessionTitle(show: boolean): Promise<void>;
  setLanguage(language: Language): Promise<void>;
};

export function makePushClient(deps: PushClientDeps): PushClient {
  let persisted: Persisted = INITIAL;
  let subscription: PushSubscriptionJson | null = null;
  const relayKeys = new Map<string, string>();
  let state: PushClientState = {
    permission: deps.platform.permission(),
    enabled: false,
    busy: false,
    settings: DEFAULT_PUSH_SETTINGS,
    machines: {},
  };
  const listeners = new Set<() => void>();
  const set = (patch: Partial<PushClientState>) => {
    state = { ...state, ...patch };
    listeners.forEach((l) => l());
  };
  const setMachine = (roomId: string, patch: Partial<MachinePush>) => {
    const old = state.machines[roomId] ?? { state: MACHINE_PUSH_STATES.off };
    set({ machines: { ...state.machines, [roomId]: { ...old, ...patch } } });
  };
  const save = (patch: Partial<Persisted>) => {
    persisted = { ...persisted, ...patch };
    return deps.kv.set(PUSH_CLIENT_KEY, persisted);
  };
  const fail = (code: PushErrorCode, message: string) =>
    set({ error: { code, message }, busy: false });

  const relayKey = async (relay: string): Promise<Result<string, string>> => {
    const known = relayKeys.get(relay);
    if (known) return { ok: true, value: known };
    const fetched = await deps.fetchVapid(relay);
    if (fetched.ok) relayKeys.set(relay, fetched.value);
    return fetched;
  };

  /** Sends what a joined room needs: removal of replaced endpoints, then push-subscribe. */
  const refreshRoom = async (room: PairedRoom): Promise<void> => {
    if (!persisted.enabled || !subscription) return;
    const key = await relayKey(room.relay);
    if (!key.ok) {
      setMachine(room.roomId, {
        state: MACHINE_PUSH_STATES.failed,
        error: { code: toPushError(key.code), message: key.message },
      });
      return;
    }
    if (key.value !== persisted.applicationServerKey) {
      setMachine(room.roomId, {
        state: MACHINE_PUSH_STATES.failed,
        error: {
          code: PUSH_ERRORS.otherRelayKey,
          message: 'This machine uses another relay; notifications come from one relay at a time.',
        },
      });
      return;
    }
    for (const endpoint of persisted.staleEndpoints[room.roomId] ?? []) {
      if (!deps.send(room.roomId, { kind: 'push-unsubscribe', room: room.roomId, endpoint }))
        return;
    }
    if (persisted.staleEndpoints[room.roomId]) {
      const { [room.roomId]: _done, ...rest } = persisted.staleEndpoints;
      await save({ staleEndpoints: rest });
    }
    const sent = deps.send(room.roomId, {
      kind: 'push-subscribe',
      room: room.roomId,
      subscription,
    });
    const { error: _cleared, ...machine } = state.machines[room.roomId] ?? {
      state: MACHINE_PUSH_STATES.off,
    };
    set({
      machines: {
        ...state.machines,
        [room.roomId]: {
          ...machine,
          state: sent ? MACHINE_PUSH_STATES.subscribed : MACHINE_PUSH_STATES.pending,
        },
      },
    });
  };

  /** Makes sure the browser holds a subscription for our key; records a replaced endpoint. */
  const ensureSubscription = async (applicationServerKey: string): Promise<boolean> => {
    const current = await deps.platform.getSubscription();
    let next = current?.json ?? null;
    if (
      current &&
      current.applicationServerKey !== null &&
      current.applicationServerKey !== applicationServerKey
    ) {
      await deps.platform.unsubscribe();
      next = null;
    }
    if (!next) {
      try {
        next = await deps.platform.subscribe(
          fromBase64Url(applicationServerKey) ?? new Uint8Array(),
        );
      } catch (e) {
        fail(PUSH_ERRORS.subscribeFailed, e instanceof Error ? e.message : String(e));
        return false;
      }
    }
    const old = persisted.endpoint;
    const staleEndpoints = { ...persisted.staleEndpoints };
    if (old !== null && old !== next.endpoint) {
      for (const room of deps.rooms()) {
        staleEndpoints[room.roomId] = [...(staleEndpoints[room.roomId] ?? []), old];
      }
    }
    subscription = next;
    await save({ endpoint: next.endpoint, applicationServerKey, staleEndpoints });
    return true;
  };

  const refreshAll = async () => {
    for (const room of deps.rooms()) await refreshRoom(room);
  };

  return {
    state: () => state,
    endpoint: () => (persisted.enabled ? (persisted.endpoint ?? undefined) : undefined),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async start() {
      persisted = { ...INITIAL, ...((await deps.kv.get<Persisted>(PUSH_CLIENT_KEY)) ?? {}) };
      // F4: stale endpoints of a room forgotten before this module had loaded go too.
      const paired = new Set(deps.rooms().map((r) => r.roomId));
      const kept = Object.entries(persisted.staleEndpoints).filter(([r]) => paired.has(r));
      if (kept.length !== Object.keys(persisted.staleEndpoints).length)
        await save({ staleEndpoints: Object.fromEntries(kept) });
      const settings = parsePushSettings(await deps.kv.get(PUSH_SETTINGS_KEY));
      const activity = (await deps.kv.get<Record<string, PushActivity>>(PUSH_ACTIVITY_KEY)) ?? {};
      const machines: Record<string, MachinePush> = {};
      for (const room of deps.rooms()) {
        const lastPush = activity[room.roomId];
        machines[room.roomId] = {
          state: MACHINE_PUSH_STATES.off,
          ...(lastPush ? { lastPush } : {}),
        };
      }
      set({
        settings,
        machines,
        enabled: persisted.enabled,
        permission: deps.platform.permission(),
      });
      if (!persisted.enabled || !deps.platform.supported()) return;
      if (deps.platform.permission() !== 'granted' || !persisted.applicationServerKey) {
        for (const room of deps.rooms())
          setMachine(room.roomId, { state: MACHINE_PUSH_STATES.off });
        return;
      }
      if (await ensureSubscription(persisted.applicationServerKey)) await refreshAll();
    },

    async enable() {
      if (!deps.platform.supported()) {
        fail(PUSH_ERRORS.unsupported, 'This browser cannot receive push notifications here.');
        return;
      }
      set({ busy: true });
      // First, inside the tap: Safari refuses the prompt after any other await.
      const permission = await deps.platform.requestPermission();
      set({ permission });
      if (permission !== 'granted') {
        fail(
          permission === 'denied' ? PUSH_ERRORS.permissionDenied : PUSH_ERRORS.permissionDismissed,
          permission === 'denied'
            ? 'Notifications are blocked for this app in the browser settings.'
            : 'The permission prompt was dismissed.',
        );
        return;
      }
      const rooms = deps.rooms();
      const first = rooms[0];
      const key = first ? await relayKey(first.relay) : null;
      if (key && !key.ok) {
        fail(toPushError(key.code), key.message);
        return;
      }
      await save({ enabled: true });
      const { error: _cleared, ...rest } = state;
      state = rest;
      set({ enabled: true });
      // With no machine yet there is no relay key: the first pairing's hello subscribes.
      if (key) {
        if (!(await ensureSubscription(key.value))) {
          // No subscription: notifications are not on, whatever the permission says.
          await save({ enabled: false });
          set({ enabled: false, busy: false });
          return;
        }
        await refreshAll();
      }
      set({ busy: false });
    },

    async disable() {
      set({ busy: true });
      for (const room of deps.rooms()) {
        if (persisted.endpoint) {
          deps.send(room.roomId, {
            kind: 'push-unsubscribe',
            room: room.roomId,
            endpoint: persisted.endpoint,
          });
        }
        setMachine(room.roomId, { state: MACHINE_PUSH_STATES.off });
      }
      await deps.platform.unsubscribe().catch(() => undefined);
      subscription = null;
      await save({
        enabled: false,
        endpoint: null,
        applicationServerKey: null,
        staleEndpoints: {},
      });
      set({ enabled: false, busy: false });
    },

    async onJoined(roomId) {
      const room = deps.rooms().find((r) => r.roomId === roomId);
      if (!room || !persisted.enabled) return;
      if (!subscription && deps.platform.permission() === 'granted') {
        // The first machine paired after notifications were enabled decides the relay key.
        const key = persisted.applicationServerKey
          ? ({ ok: true, value: persisted.applicationServerKey } as const)
          : await relayKey(room.relay);
        if (!key.ok || !(await ensureSubscription(key.value))) return;
      }
      await refreshRoom(room);
    },

    async onSubscriptionChanged() {
      if (!persisted.enabled || !persisted.applicationServerKey) return;
      if (await ensureSubscription(persisted.applicationServerKey)) await refreshAll();
    },

    forget(roomId) {
      const sent =
        persisted.endpoint !== null &&
        deps.send(roomId, { kind: 'push-unsubscribe', room: roomId, endpoint: persisted.endpoint });
      const { [roomId]: _gone, ...machines } = state.machines;
      set({ machines });
      return sent;
    },

    async forgetStored(roomId) {
      const { [roomId]: _gone, ...machines } = state.machines;
      set({ machines });
      const { [roomId]: _stale, ...staleEndpoints } = persisted.staleEndpoints;
      if (_stale) await save({ staleEndpoints });
    },

    pushReceived(roomId, activity) {
      setMachine(roomId, { lastPush: activity });
    },

    async setShowSessionTitle(show) {
      const settings = { ...state.settings, showSessionTitle: show };
      await deps.kv.set(PUSH_SETTINGS_KEY, settings);
      set({ settings });
    },

    async setLanguage(language) {
      const settings = { ...state.settings, language };
      await deps.kv.set(PUSH_SETTINGS_KEY, settings);
      set({ settings });
    },
  };
}

function toPushError(code: string): PushErrorCode {
  if (code === 'vapid-invalid') return PUSH_ERRORS.vapidInvalid;
  if (code === 'bad-relay-url') return PUSH_ERRORS.badRelayUrl;
  return PUSH_ERRORS.vapidUnreachable;
}
