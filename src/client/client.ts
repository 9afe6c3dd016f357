import type { Pairing } from '../../protocol/index.ts';
import { makeActions } from './actions.ts';
import { makeClock, type Clock } from './clock.ts';
import {
  NETWORK_STATES,
  type ClientDeps,
  type ClientState,
  type NetworkState,
} from './client-types.ts';
import { makeDecisions } from './decisions.ts';
import { PUSH_ACTIVITY_KEY } from '../../page-worker/store-layout.ts';
import { makeDrafts } from './drafts.ts';
import type { Kv } from './kv.ts';
import { makeIdentity } from './identity.ts';
import { emptyView, type MachineView, type TranscriptAsk } from './machine-view.ts';
import { loadCachedView, makeViewCache } from './offline-cache.ts';
import { makeOutbox } from './outbox.ts';
import { makePairingStore, type PairedMachine } from './pairing-store.ts';
import { makeReplyNotes } from './reply-notes.ts';
import { makeRoomEvents } from './room-events.ts';
import { makeRoomLink } from './room-link.ts';
import { needsProtection } from './phones.ts';
import { makeRoomMoves } from './room-moves.ts';
import { makeViewStore } from './view-store.ts';

export * from './client-types.ts';
export { SNAPSHOT_WAIT_MS } from './decisions.ts';

// The phone's one client: the paired rooms, one connection per relay URL, the views of every
// machine, the outbox. Components read `state()` and call the actions; nothing here touches the
// DOM. This function only wires the parts: the relay/room link (room-link.ts), the view store
// (view-store.ts), decisions and the outbox (decisions.ts, actions.ts), this phone's identity
// and presence (identity.ts), room moves (room-moves.ts) and what arrives (room-events.ts).
/** F4: the worker's last-push record for a forgotten machine (page-worker/store-layout.ts). */
async function forgetPushActivity(kv: Kv, roomId: string): Promise<void> {
  const activity = await kv.get<Record<string, unknown>>(PUSH_ACTIVITY_KEY);
  if (!activity || !(roomId in activity)) return;
  const { [roomId]: _gone, ...rest } = activity;
  await kv.set(PUSH_ACTIVITY_KEY, rest);
}

export function makeClient(deps: ClientDeps) {
  const now = deps.now ?? Date.now;
  const uuid = deps.uuid ?? (() => crypto.randomUUID());
  const log = deps.log ?? ((line: string) => console.info(line));
  const clock: Clock = makeClock(now);
  const pairings = makePairingStore(deps.kv);
  const asks = new Map<string, TranscriptAsk>();
  const cache = makeViewCache(deps.kv, deps.timers);
  let network: NetworkState = NETWORK_STATES.online;
  let ready = false;

  const views = makeViewStore({ cache, compose: () => compose() });
  const changed = views.changed;
  const outbox = makeOutbox({ kv: deps.kv, now, onChange: changed, timers: deps.timers });
  const drafts = makeDrafts({ kv: deps.kv, timers: deps.timers, now, onChange: changed });
  const replyNotes = makeReplyNotes(drafts, now);
  const link = makeRoomLink({
    socket: deps.socket,
    timers: deps.timers,
    now,
    random: deps.random ?? Math.random,
    log,
    onEvent: (relay, event) => onEvent(relay, event),
    onChange: changed,
  });
  const decisions = makeDecisions({
    link,
    views,
    outbox,
    replyNotes,
    clock,
    timers: deps.timers,
    now,
    uuid,
    log,
    network: () => network,
  });
  const identity = makeIdentity({
    kv: deps.kv,
    link,
    views,
    pairings,
    send: decisions.send,
    uuid,
    ...(deps.phoneName ? { phoneName: deps.phoneName } : {}),
    ...(deps.authenticator ? { authenticator: deps.authenticator } : {}),
    onChange: changed,
  });

  const addRoom = (paired: PairedMachine) => {
    if (!link.addRoom(paired)) return;
    if (!views.get(paired.roomId))
      views.put(paired.roomId, emptyView(paired.roomId, paired.machine, paired.relay));
  };
  const dropRoom = (roomId: string) => {
    link.deleteRoom(roomId);
    identity.unregister(roomId);
    outbox.forgetRoom(roomId);
    replyNotes.forgetRoom(roomId);
    cache.forget(roomId);
    views.remove(roomId);
    changed();
  };

  const moves = makeRoomMoves({
    link,
    views,
    pairings,
    outbox,
    cache,
    decisions,
    identity,
    addRoom,
    dropRoom,
    ...(deps.pushEndpoint ? { pushEndpoint: deps.pushEndpoint } : {}),
    now,
    log,
  });
  const onEvent = makeRoomEvents({
    link,
    views,
    clock,
    outbox,
    replyNotes,
    decisions,
    identity,
    moves,
    asks,
    ...(deps.onJoined ? { onJoined: deps.onJoined } : {}),
    now,
    log,
  });

  const compose = (): ClientState => ({
    ready,
    machines: pairings
      .list()
      .map((p) => views.get(p.roomId))
      .filter((v): v is MachineView => !!v),
    links: link.links(),
    relayNotices: link.notices(),
    outbox: outbox.entries(),
    network,
    drafts: drafts.all(),
    replyNotes: replyNotes.all(),
    removed: pairings.removed(),
    phones: Object.fromEntries(
      pairings
        .list()
        .flatMap((p) =>
          p.phone ? [[p.roomId, { phoneId: p.phone.phoneId, name: p.phone.name }]] : [],
        ),
    ),
    rotateFailures: moves.rotateFailures(),
    moved: moves.movedRooms(),
    credential: identity.credential(),
  });

  return {
    clock,
    async start() {
      const [loaded, , , stored] = await Promise.all([
        pairings.load(),
        outbox.load(),
        drafts.load(),
        identity.readCredential(),
        deps.loadCrypto?.(),
      ]);
      identity.restore(stored);
      // E6: a pairing made before per-phone identities gets its identity now.
      const list: PairedMachine[] = [];
      for (const p of loaded)
        list.push(
          p.phone ? p : ((await pairings.update(p.roomId, { phone: identity.newIdentity() })) ?? p),
        );
      for (const paired of list) {
        addRoom(paired);
        const cached = await loadCachedView(deps.kv, paired.roomId);
        const view = views.get(paired.roomId);
        if (cached && view) {
          const restored = { ...view, ...cached, fromCache: true };
          views.put(paired.roomId, restored);
          cache.loaded(restored);
        }
      }
      ready = true;
      changed();
      for (const relay of new Set(list.map((p) => p.relay))) link.connectionFor(relay);
    },
    state: views.state,
    subscribe: views.subscribe,
    blocked: decisions.blocked,
    async pair(pairing: Pairing) {
      if (deps.loadCrypto) await deps.loadCrypto();
      // E9.19: a re-pair of the same room keeps this phone's identity (no second row, no wait).
      const phone = pairings.identityFor(pairing) ?? identity.newIdentity();
      const { paired, replaced } = await pairings.save(pairing, now(), phone);
      for (const old of replaced) dropRoom(old);
      if (pairings.removed().some((r) => r.roomId === paired.roomId))
        await pairings.dismissRemoved(paired.roomId);
      addRoom(paired);
      changed();
      const c = link.connection(paired.relay);
      if (!c) link.connectionFor(paired.relay);
      else if (replaced.length > 0) c.restart();
      else c.join(paired.roomId);
      return paired;
    },
    async forget(roomId: string) {
      const room = link.room(roomId);
      if (!room) return;
      const c = link.connection(room.paired.relay);
      link.pushUnsubscribe(room.paired.relay, roomId, deps.pushEndpoint?.());
      await pairings.forget(roomId);
      // F4: nothing of the machine stays on the phone — its secret (above), cards, transcripts
      // cache and queued actions (dropRoom), its prompt and reply drafts, a "removed" notice, the
      // worker's last-push record and the push client's state for its room.
      if (pairings.removed().some((r) => r.roomId === roomId))
        await pairings.dismissRemoved(roomId);
      dropRoom(roomId);
      drafts.forgetRoom(roomId);
      await forgetPushActivity(deps.kv, roomId);
      await deps.onForgotten?.(roomId);
      // The relay has no "leave": a fresh socket joins only the rooms still paired.
      if (link.roomsOf(room.paired.relay).length === 0) link.closeRelay(room.paired.relay);
      else c?.restart();
    },
    ...makeActions({ views, decisions, identity, asks, uuid }),
    renamePhone: identity.renamePhone,
    /** E9: the machine offers phones but this pairing's code had no machine key: re-pair. */
    needsProtection(roomId: string): boolean {
      const room = link.room(roomId);
      return room !== undefined && needsProtection(room.paired, views.get(roomId));
    },
    /** E6: hides a "removed from <machine>" notice. */
    async dismissRemoved(roomId: string) {
      await pairings.dismissRemoved(roomId);
      changed();
    },
    enablePresence: identity.enablePresence,
    disablePresence: identity.disablePresence,
    presenceAvailable: identity.presenceAvailable,
    /** The paired rooms and their relays (for the push client). */
    pairedRooms: () => pairings.list().map((p) => ({ roomId: p.roomId, relay: p.relay })),
    sendFrame: link.sendFrame,
    dismissNotice: link.dismissNotice,
    /** U2: the text in a box (drafts.ts keys); kept on this phone until the machine has it. */
    setDraft: (key: string, text: string) => drafts.set(key, text),
    /** U4.offline: the browser says whether this phone has a network (online/offline events). */
    setNetwork(online: boolean) {
      const next = online ? NETWORK_STATES.online : NETWORK_STATES.offline;
      if (next === network) return;
      network = next;
      changed();
      // No network: every socket is dead whatever it claims (the D5 probe would take up to 35 s
      // to notice), so they are closed now and reopened the moment the network is back.
      if (!online) link.each((c) => c.suspend());
      else link.each((c) => c.kick());
    },
    /** U4.offline "Reconnect now": reconnect what is down and probe what claims to be up (D5). */
    reconnectNow: () => link.each((c) => c.reconnectNow()),
    /** Writes pending offline-cache and draft updates now (the page is being hidden or unloaded). */
    flush: () => {
      cache.flush();
      drafts.flush();
    },
    kickAll: () => link.each((c) => c.kick()),
    suspendAll: () => link.each((c) => c.suspend()),
    close() {
      link.closeAll();
      cache.flush();
      drafts.flush();
    },
  };
}
export type Client = ReturnType<typeof makeClient>;
