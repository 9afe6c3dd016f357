import {
  fromBase64Url,
  roomKeys,
  seal,
  dispatchNeedsPresence,
  type Decision,
  type MachineMessage,
  type PresenceAssertion,
  type WebAuthnCredential,
  type Pairing,
  type PhoneMessage,
  type QuestionAnswer,
  type ClientFrame,
} from '../../protocol/index.ts';
import { makeClock, type Clock } from './clock.ts';
import {
  LINK_STATES,
  makeConnection,
  type Connection,
  type ConnectionEvent,
  type LinkStatus,
} from './connection.ts';
import {
  ACT_BLOCKS,
  NETWORK_STATES,
  NOT_OFFERED,
  type ActBlock,
  type ActResult,
  type ClientDeps,
  type ClientState,
  type DispatchInput,
  type NetworkState,
  type RelayNotice,
} from './client-types.ts';
import { makeDrafts } from './drafts.ts';
import { extensionsOf, respondExtras, type ApprovalChoice } from './extensions.ts';
import { openFrame, settle } from './incoming.ts';
import { emptyView, type MachineView, type TranscriptAsk } from './machine-view.ts';
import type { TimerHandle } from './socket.ts';
import { loadCachedView, makeViewCache } from './offline-cache.ts';
import { ACTION_STATES, makeOutbox, type ActionKind } from './outbox.ts';
import { makePairingStore, type PairedMachine } from './pairing-store.ts';
import { cleanPhoneName, makePhoneIdentity, registerFields } from './phone-identity.ts';
import { keyToPin, phonesOffered, readRotate, removedBy, shouldRegister } from './phones.ts';
import { makeReplyNotes } from './reply-notes.ts';
import {
  challengeOf,
  loadCredential,
  PRESENCE_CREDENTIAL_KEY,
  PRESENCE_FAILURES,
  presenceText,
  PresenceError,
} from './webauthn.ts';

export * from './client-types.ts';

type Room = { paired: PairedMachine; key: Uint8Array };

/** E1: how long queued decisions wait for the machine's snapshot after a (re)join. */
export const SNAPSHOT_WAIT_MS = 5_000;

// The phone's one client: the paired rooms, one connection per relay URL, the views of every
// machine, the outbox. Components read `state()` and call the actions; nothing here touches the DOM.
export function makeClient(deps: ClientDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const uuid = deps.uuid ?? (() => crypto.randomUUID());
  const log = deps.log ?? ((line: string) => console.info(line));
  const clock: Clock = makeClock(now);
  const pairings = makePairingStore(deps.kv);
  const rooms = new Map<string, Room>();
  const connections = new Map<string, Connection>();
  const asks = new Map<string, TranscriptAsk>();
  const listeners = new Set<() => void>();
  const cache = makeViewCache(deps.kv, deps.timers);
  let views: Record<string, MachineView> = {};
  let links: Record<string, LinkStatus> = {};
  let relayNotices: Record<string, RelayNotice> = {};
  let network: NetworkState = NETWORK_STATES.online;
  let ready = false;
  // E6: rooms whose phone.register went out since their last fresh hello-ok.
  const registered = new Set<string>();
  // E6: a room we moved into after a rotate -> the old room and relay, whose push subscription
  // is dropped once the new room's own is in place (subscribe new, then unsubscribe old).
  const movedFrom = new Map<string, { roomId: string; relay: string }>();
  const following = new Set<string>();
  let rotateFailures: Record<string, string> = {};
  // E6: old room -> the room it moved to, so a screen open on the old one follows the move.
  let movedRooms: Record<string, string> = {};
  let credential: WebAuthnCredential | null = null;
  let snapshot: ClientState | null = null;
  // E1: after a (re)join, queued decisions wait for the machine's snapshot, so a decision for a
  // card the machine no longer holds is dropped instead of re-sent.
  // A machine that never answers sessions.get must not hold decisions back for ever: after
  // SNAPSHOT_WAIT_MS they are re-sent as before E1 (D10).
  const awaitingSnapshot = new Map<string, TimerHandle>();
  const awaitSnapshot = (roomId: string) => {
    if (awaitingSnapshot.has(roomId)) return;
    awaitingSnapshot.set(
      roomId,
      deps.timers.setTimeout(() => {
        if (awaitingSnapshot.delete(roomId)) resend(roomId);
      }, SNAPSHOT_WAIT_MS),
    );
  };
  const snapshotCame = (roomId: string): boolean => {
    const timer = awaitingSnapshot.get(roomId);
    if (timer === undefined) return false;
    deps.timers.clearTimeout(timer);
    return awaitingSnapshot.delete(roomId);
  };

  const changed = () => {
    snapshot = null;
    for (const fn of listeners) fn();
  };
  const outbox = makeOutbox({ kv: deps.kv, now, onChange: changed, timers: deps.timers });
  const drafts = makeDrafts({ kv: deps.kv, timers: deps.timers, now, onChange: changed });
  const replyNotes = makeReplyNotes(drafts, now);

  const setView = (roomId: string, next: MachineView, persist = false) => {
    views = { ...views, [roomId]: next };
    if (persist) cache.save(next);
    changed();
  };

  const roomsOf = (relay: string) =>
    [...rooms.values()].filter((r) => r.paired.relay === relay).map((r) => r.paired.roomId);

  const onMessage = (room: Room, payload: string) => {
    const roomId = room.paired.roomId;
    const view = views[roomId];
    if (!view) return;
    const { view: base, message } = openFrame(view, room.key, payload, log);
    if (!message) {
      if (base !== view) setView(roomId, base);
      return;
    }
    if (message.type === 'machine.status') clock.observe(roomId, message.ts);
    if (message.type === 'room.rotate') return void follow(room, message);
    if (removedBy(room.paired, message)) return void removed(roomId);
    let ask: TranscriptAsk | undefined;
    if (message.type === 'transcript') {
      ask = asks.get(message.requestId);
      asks.delete(message.requestId);
    }
    setView(
      roomId,
      settle(base, message, { at: now(), ...(ask ? { ask } : {}), outbox, replyNotes }),
      true,
    );
    if (message.type === 'session.snapshot' && snapshotCame(roomId)) resend(roomId);
    if (message.type === 'machine.status') void pinAndRegister(room, message);
  };

  // E6: pins the machine's first box key, then registers if the machine offers phones.
  const pinAndRegister = async (
    room: Room,
    status: Extract<MachineMessage, { type: 'machine.status' }>,
  ) => {
    const pin = keyToPin(room.paired, status);
    if (pin !== null) {
      const updated = await pairings.update(room.paired.roomId, { machineBoxKey: pin });
      if (updated) room.paired = updated;
    }
    register(room.paired.roomId);
  };
  const register = (roomId: string) => {
    const room = rooms.get(roomId);
    if (!room?.paired.phone || registered.has(roomId)) return;
    if (!shouldRegister(room.paired, views[roomId])) return;
    const fields = registerFields(room.paired.phone, uuid(), credential);
    if (send(roomId, fields)) registered.add(roomId);
  };

  // E6: a room.rotate for this phone, opened with the pinned key: move to the new room at once.
  const follow = async (room: Room, message: Extract<MachineMessage, { type: 'room.rotate' }>) => {
    const from = room.paired.roomId;
    const opened = readRotate(room.paired, message);
    if (!opened.ok) {
      if (opened.code === 'not-for-me') return;
      log(`room ${from.slice(0, 8)}: a room.rotate was refused (${opened.code})`);
      rotateFailures = { ...rotateFailures, [from]: opened.code };
      return changed();
    }
    if (following.has(from)) return;
    following.add(from);
    try {
      const moved = await pairings.rotate(from, opened.value);
      if (!moved) return;
      const to = moved.roomId;
      const oldView = views[from];
      rooms.delete(from);
      registered.delete(from);
      snapshotCame(from);
      addRoom(moved);
      const { [from]: _old, ...rest } = views;
      views = {
        ...rest,
        [to]: {
          ...(oldView ?? emptyView(to, moved.machine, moved.relay)),
          roomId: to,
          relay: moved.relay,
          machineOnline: false,
          machineSince: null,
        },
      };
      const { [from]: _f, ...failures } = rotateFailures;
      rotateFailures = failures;
      outbox.moveRoom(from, to);
      cache.forget(from);
      movedFrom.set(to, { roomId: from, relay: room.paired.relay });
      movedRooms = Object.fromEntries([
        ...Object.entries(movedRooms).map(([k, v]) => [k, v === from ? to : v]),
        [from, to],
      ]);
      changed();
      const c = connections.get(moved.relay);
      if (c) c.join(to);
      else connectionFor(moved.relay);
    } finally {
      following.delete(from);
    }
  };

  // E6: the old room's push subscription goes once the new room's is in place.
  const leaveOldRoom = (to: string) => {
    const old = movedFrom.get(to);
    if (!old) return;
    movedFrom.delete(to);
    const endpoint = deps.pushEndpoint?.();
    const c = connections.get(old.relay);
    if (endpoint) c?.send({ kind: 'push-unsubscribe', room: old.roomId, endpoint });
    // The relay has no "leave": a socket that holds only the old room is closed.
    if (c && roomsOf(old.relay).length === 0) {
      c.close();
      connections.delete(old.relay);
    }
  };

  // E6: the machine revoked this phone: the secret goes, a notice stays ("removed from …").
  const removed = async (roomId: string) => {
    const room = rooms.get(roomId);
    if (!room) return;
    const endpoint = deps.pushEndpoint?.();
    const c = connections.get(room.paired.relay);
    if (endpoint) c?.send({ kind: 'push-unsubscribe', room: roomId, endpoint });
    rooms.delete(roomId);
    await pairings.markRemoved(roomId, now());
    dropRoom(roomId);
    if (roomsOf(room.paired.relay).length === 0) closeRelay(room.paired.relay);
    else c?.restart();
  };

  const onEvent = (relay: string, event: ConnectionEvent) => {
    switch (event.kind) {
      case 'status':
        links = { ...links, [relay]: event.status };
        changed();
        return;
      case 'joined': {
        const view = views[event.room];
        if (!view) return;
        const machineOnline = event.peers.machine > 0;
        if (machineOnline !== view.machineOnline || view.machineSince === null)
          setView(event.room, { ...view, machineOnline, machineSince: now() });
        if (event.fresh) registered.delete(event.room);
        if (machineOnline) register(event.room);
        if (machineOnline && (event.fresh || awaitingSnapshot.has(event.room))) {
          awaitSnapshot(event.room);
          send(event.room, { type: 'sessions.get' });
        }
        // Without the machine in the room the relay would drop a re-send; it goes out when the
        // machine's presence arrives instead.
        if (machineOnline) resend(event.room);
        const subscribed = deps.onJoined?.(event.room);
        if (movedFrom.has(event.room))
          void Promise.resolve(subscribed).finally(() => leaveOldRoom(event.room));
        return;
      }
      case 'refused':
        relayNotices = {
          ...relayNotices,
          [relay]: { code: event.code, message: event.message, at: now() },
        };
        changed();
        return;
      case 'socket-closed':
        for (const roomId of roomsOf(relay)) outbox.markUnconfirmed(roomId);
        return;
      case 'frame': {
        const frame = event.frame;
        if (frame.kind === 'msg') {
          const room = rooms.get(frame.room);
          if (room && room.paired.relay === relay) onMessage(room, frame.payload);
        } else if (frame.kind === 'presence' && frame.role === 'machine') {
          const view = views[frame.room];
          if (!view) return;
          setView(frame.room, { ...view, machineOnline: frame.online, machineSince: now() });
          if (frame.online) {
            registered.delete(frame.room);
            register(frame.room);
            awaitSnapshot(frame.room);
            send(frame.room, { type: 'sessions.get' });
            resend(frame.room);
          } else {
            // Whatever the machine had not confirmed when it left may never have reached it.
            snapshotCame(frame.room);
            outbox.markUnconfirmed(frame.room);
          }
        } else if (frame.kind === 'error') {
          relayNotices = {
            ...relayNotices,
            [relay]: { code: frame.code, message: frame.message, at: now() },
          };
          changed();
        }
        return;
      }
    }
  };

  const connectionFor = (relay: string): Connection => {
    let c = connections.get(relay);
    if (!c) {
      c = makeConnection({
        url: relay,
        socket: deps.socket,
        timers: deps.timers,
        now,
        random,
        rooms: () => roomsOf(relay),
        onEvent: (e) => onEvent(relay, e),
        log,
      });
      connections.set(relay, c);
      links = { ...links, [relay]: c.status() };
      c.start();
    }
    return c;
  };

  const sealFor = (roomId: string, message: PhoneMessage): string | null => {
    const room = rooms.get(roomId);
    return room ? seal(message, room.key) : null;
  };
  const transmit = (roomId: string, message: PhoneMessage): boolean => {
    const room = rooms.get(roomId);
    const payload = sealFor(roomId, message);
    if (!room || payload === null) return false;
    const c = connections.get(room.paired.relay);
    return c?.send({ kind: 'msg', room: roomId, payload }) ?? false;
  };
  // E6: every action names its phone, only to a machine that announced phones (EC).
  const sender = (roomId: string): { phoneId?: string } => {
    const phone = rooms.get(roomId)?.paired.phone;
    return phone && phonesOffered(views[roomId]) ? { phoneId: phone.phoneId } : {};
  };
  const send = (
    roomId: string,
    fields: { type: PhoneMessage['type'] } & Record<string, unknown>,
  ) => {
    const message = {
      v: 1,
      ts: clock.machineNow(roomId),
      ...sender(roomId),
      ...fields,
    } as PhoneMessage;
    return transmit(roomId, message) ? message : null;
  };
  const resend = (roomId: string) => {
    const waitForSnapshot = awaitingSnapshot.has(roomId);
    for (const entry of outbox.due(roomId)) {
      const decision = entry.kind === 'approval' || entry.kind === 'question';
      if (decision && waitForSnapshot) continue;
      if (transmit(roomId, entry.message)) outbox.noteResent(entry.requestId);
    }
    // A reply too old to re-send goes back into its box (U2). A Stop or a revoke too old to
    // re-send is dropped, so its button comes back (E2, E4): neither may act late.
    for (const entry of outbox.entries()) {
      if (entry.roomId !== roomId || entry.state !== ACTION_STATES.expired) continue;
      if (entry.kind === 'message') replyNotes.expired(entry);
      else if (entry.kind !== 'interrupt' && entry.kind !== 'rule') continue;
      outbox.remove(entry.requestId);
    }
  };

  const blocked = (roomId: string): ActBlock | null => {
    const room = rooms.get(roomId);
    const view = views[roomId];
    if (!room || !view) return ACT_BLOCKS.unknownMachine;
    if (network === NETWORK_STATES.offline) return ACT_BLOCKS.noNetwork;
    const c = connections.get(room.paired.relay);
    if (!c || c.status().state !== LINK_STATES.online || !c.isJoined(roomId))
      return ACT_BLOCKS.offline;
    if (!view.machineOnline) return ACT_BLOCKS.machineOffline;
    if (view.repairNeeded) return ACT_BLOCKS.repairNeeded;
    return null;
  };

  // Every action is persisted before it goes out, so a crash between the two re-sends it.
  const act = async (
    roomId: string,
    kind: ActionKind,
    targetOf: (requestId: string) => string,
    fields: { type: PhoneMessage['type'] } & Record<string, unknown>,
    presence?: (requestId: string, ts: number) => Promise<PresenceAssertion | null>,
  ): Promise<ActResult> => {
    // One decision per approval or question (one Stop per session, one revoke per rule): a
    // second tap returns the first action, unsent.
    if (kind !== 'dispatch' && kind !== 'message') {
      const existing = outbox.find(kind, roomId, targetOf(''));
      if (existing) return { ok: true, requestId: existing.requestId };
    }
    const block = blocked(roomId);
    if (block) return { ok: false, code: block };
    const requestId = uuid();
    const ts = clock.machineNow(roomId);
    // E7: the assertion signs this message's own requestId and ts, so it is made before storing.
    let assertion: PresenceAssertion | null = null;
    try {
      assertion = presence ? await presence(requestId, ts) : null;
    } catch (e) {
      const code = e instanceof PresenceError ? e.code : PRESENCE_FAILURES.cancelled;
      log(`presence: no assertion (${code})`);
      return { ok: false, code };
    }
    const message = {
      v: 1,
      ts,
      ...sender(roomId),
      ...fields,
      requestId,
      ...(assertion ? { presence: assertion } : {}),
    } as PhoneMessage;
    try {
      await outbox.add({
        requestId,
        roomId,
        kind,
        targetId: targetOf(requestId),
        message,
        createdAt: now(),
      });
    } catch (e) {
      log(`outbox: an action could not be stored (${(e as Error).name}); not sent`);
      return { ok: false, code: ACT_BLOCKS.storageFailed };
    }
    if (!transmit(roomId, message)) outbox.markUnconfirmed(roomId);
    return { ok: true, requestId };
  };

  const dropRoom = (roomId: string) => {
    rooms.delete(roomId);
    registered.delete(roomId);
    outbox.forgetRoom(roomId);
    replyNotes.forgetRoom(roomId);
    cache.forget(roomId);
    const { [roomId]: _gone, ...rest } = views;
    views = rest;
    changed();
  };
  const closeRelay = (relay: string) => {
    connections.get(relay)?.close();
    connections.delete(relay);
    const { [relay]: _l, ...others } = links;
    links = others;
    changed();
  };

  // E7: an assertion when this approval or dispatch needs one and presence is on; null otherwise
  // (the machine then answers presence-required, which the card shows).
  const presenceFor =
    (what: Parameters<typeof presenceText>[0]) =>
    async (requestId: string, ts: number): Promise<PresenceAssertion | null> => {
      if (!credential || !deps.authenticator) return null;
      const text = presenceText(what, requestId, ts);
      if (text === null) throw new PresenceError(PRESENCE_FAILURES.unusable, 'Bad challenge.');
      return deps.authenticator.assert(credential, await challengeOf(text));
    };

  const addRoom = (paired: PairedMachine) => {
    const secret = fromBase64Url(paired.secret);
    if (!secret) return log(`pairing ${paired.roomId.slice(0, 8)}: stored secret unreadable`);
    rooms.set(paired.roomId, { paired, key: roomKeys(secret).key });
    if (!views[paired.roomId])
      views = { ...views, [paired.roomId]: emptyView(paired.roomId, paired.machine, paired.relay) };
  };

  const newIdentity = () => makePhoneIdentity(uuid(), deps.phoneName?.() ?? 'Phone');
  const reRegisterAll = () => {
    for (const roomId of rooms.keys()) {
      registered.delete(roomId);
      register(roomId);
    }
  };

  return {
    clock,
    async start() {
      const [loaded, , , stored] = await Promise.all([
        pairings.load(),
        outbox.load(),
        drafts.load(),
        loadCredential(deps.kv),
      ]);
      credential = stored;
      // E6: a pairing made before per-phone identities gets its identity now.
      const list: PairedMachine[] = [];
      for (const p of loaded)
        list.push(p.phone ? p : ((await pairings.update(p.roomId, { phone: newIdentity() })) ?? p));
      for (const paired of list) {
        addRoom(paired);
        const cached = await loadCachedView(deps.kv, paired.roomId);
        const view = views[paired.roomId];
        if (cached && view) {
          const restored = { ...view, ...cached, fromCache: true };
          views = { ...views, [paired.roomId]: restored };
          cache.loaded(restored);
        }
      }
      ready = true;
      changed();
      for (const relay of new Set(list.map((p) => p.relay))) connectionFor(relay);
    },
    state(): ClientState {
      snapshot ??= {
        ready,
        machines: pairings
          .list()
          .map((p) => views[p.roomId])
          .filter((v): v is MachineView => !!v),
        links,
        relayNotices,
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
        rotateFailures,
        moved: movedRooms,
        credential,
      };
      return snapshot;
    },
    subscribe(fn: () => void) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    blocked,
    async pair(pairing: Pairing) {
      const { paired, replaced } = await pairings.save(pairing, now(), newIdentity());
      for (const old of replaced) dropRoom(old);
      if (pairings.removed().some((r) => r.roomId === paired.roomId))
        await pairings.dismissRemoved(paired.roomId);
      addRoom(paired);
      changed();
      const c = connections.get(paired.relay);
      if (!c) connectionFor(paired.relay);
      else if (replaced.length > 0) c.restart();
      else c.join(paired.roomId);
      return paired;
    },
    async forget(roomId: string) {
      const room = rooms.get(roomId);
      if (!room) return;
      const endpoint = deps.pushEndpoint?.();
      const c = connections.get(room.paired.relay);
      if (endpoint) c?.send({ kind: 'push-unsubscribe', room: roomId, endpoint });
      await pairings.forget(roomId);
      dropRoom(roomId);
      // The relay has no "leave": a fresh socket joins only the rooms still paired.
      if (roomsOf(room.paired.relay).length === 0) closeRelay(room.paired.relay);
      else c?.restart();
    },
    /**
     * E2/E3: `choice` (a remembered scope, an edited command) is sent only when the machine
     * announced it and would accept it for this request; otherwise nothing is sent (EC).
     */
    respondApproval(
      roomId: string,
      approvalId: string,
      decision: Decision,
      choice: ApprovalChoice = {},
    ): Promise<ActResult> {
      const view = views[roomId];
      const approval = view?.approvals[approvalId];
      let extras: ApprovalChoice = {};
      if (choice.scope !== undefined || choice.edited !== undefined) {
        if (!view || !approval) return Promise.resolve({ ok: false, code: NOT_OFFERED });
        const checked = respondExtras(view, approval, decision, choice);
        if (!checked.ok) return Promise.resolve(checked);
        extras = checked.extras;
      }
      // E7: a deny never needs presence, so it never prompts.
      const needsPresence = decision === 'allow' && approval?.presence === true;
      return act(
        roomId,
        'approval',
        () => approvalId,
        { type: 'approval.respond', approvalId, decision, ...extras },
        needsPresence ? presenceFor({ approvalId, decision }) : undefined,
      );
    },
    /** E4: only to a machine that announced `interrupt`. */
    interrupt(roomId: string, sessionId: string): Promise<ActResult> {
      const view = views[roomId];
      if (!view || !extensionsOf(view).interrupt)
        return Promise.resolve({ ok: false, code: NOT_OFFERED });
      return act(roomId, 'interrupt', () => sessionId, { type: 'session.interrupt', sessionId });
    },
    /** E2: asks for the machine's rules (a read: not kept in the outbox); null when not sent. */
    getRules(roomId: string): string | null {
      const view = views[roomId];
      if (!view || !extensionsOf(view).approvalRules) return null;
      const requestId = uuid();
      return send(roomId, { type: 'rules.get', requestId }) ? requestId : null;
    },
    /** E2: only to a machine that announced `approvalRules`. */
    revokeRule(roomId: string, ruleId: string): Promise<ActResult> {
      const view = views[roomId];
      if (!view || !extensionsOf(view).approvalRules)
        return Promise.resolve({ ok: false, code: NOT_OFFERED });
      return act(roomId, 'rule', () => ruleId, { type: 'rule.revoke', ruleId });
    },
    respondQuestion: (roomId: string, questionId: string, answers: QuestionAnswer[]) =>
      act(roomId, 'question', () => questionId, { type: 'question.respond', questionId, answers }),
    dispatch: (roomId: string, input: DispatchInput) =>
      act(
        roomId,
        'dispatch',
        (id) => id,
        {
          type: 'dispatch.request',
          prompt: input.prompt,
          worktree: input.worktree,
          ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
          ...(input.access === 'full' ? { access: 'full' } : {}),
          ...(input.agent !== undefined ? { agent: input.agent } : {}),
        },
        dispatchNeedsPresence(views[roomId]?.status?.capabilities?.presence, input.access)
          ? presenceFor({ dispatch: true })
          : undefined,
      ),
    /**
     * E6: asks the machine to revoke a phone (a read-like request, not kept in the outbox: the
     * `phones` list the machine sends afterwards shows the outcome). False when not sent.
     */
    revokePhone(roomId: string, phoneId: string): boolean {
      if (!phonesOffered(views[roomId]) || blocked(roomId) !== null) return false;
      return send(roomId, { type: 'phone.revoke', requestId: uuid(), phoneId }) !== null;
    },
    /** E6: renames this phone for one machine; registered again at once. */
    async renamePhone(roomId: string, name: string): Promise<boolean> {
      const phone = rooms.get(roomId)?.paired.phone;
      const clean = cleanPhoneName(name);
      if (!phone || clean === null) return false;
      const updated = await pairings.update(roomId, { phone: { ...phone, name: clean } });
      const room = rooms.get(roomId);
      if (!updated || !room) return false;
      room.paired = updated;
      registered.delete(roomId);
      register(roomId);
      changed();
      return true;
    },
    /** E6: hides a "removed from <machine>" notice. */
    async dismissRemoved(roomId: string) {
      await pairings.dismissRemoved(roomId);
      changed();
    },
    /**
     * E7: creates the platform credential (user verification required) and registers it with
     * every machine that offers phones. Throws PresenceError (code) when it cannot.
     */
    async enablePresence(): Promise<void> {
      if (!deps.authenticator)
        throw new PresenceError(PRESENCE_FAILURES.unavailable, 'No authenticator.');
      const first = pairings.list().find((p) => p.phone)?.phone;
      const made = await deps.authenticator.create({
        phoneId: first?.phoneId ?? uuid(),
        name: first?.name ?? deps.phoneName?.() ?? 'Phone',
      });
      await deps.kv.set(PRESENCE_CREDENTIAL_KEY, made);
      credential = made;
      reRegisterAll();
      changed();
    },
    /** E7: forgets the credential here; machines keep it until this phone registers again. */
    async disablePresence(): Promise<void> {
      await deps.kv.del(PRESENCE_CREDENTIAL_KEY);
      credential = null;
      reRegisterAll();
      changed();
    },
    presenceAvailable: (): Promise<boolean> =>
      deps.authenticator ? deps.authenticator.available() : Promise.resolve(false),
    sendMessage: (roomId: string, sessionId: string, text: string) =>
      act(roomId, 'message', () => sessionId, { type: 'session.message', sessionId, text }),
    getTranscript(roomId: string, sessionId: string, before?: number): string | null {
      const requestId = uuid();
      asks.set(requestId, before === undefined ? { sessionId } : { sessionId, before });
      const sent = send(roomId, {
        type: 'transcript.get',
        requestId,
        sessionId,
        ...(before !== undefined ? { before } : {}),
      });
      if (!sent) asks.delete(requestId);
      return sent ? requestId : null;
    },
    refresh: (roomId: string) => send(roomId, { type: 'sessions.get' }) !== null,
    /** The paired rooms and their relays (for the push client). */
    pairedRooms: () => pairings.list().map((p) => ({ roomId: p.roomId, relay: p.relay })),
    /** Sends a relay frame for a joined room (push-subscribe / -unsubscribe); false otherwise. */
    sendFrame(roomId: string, frame: ClientFrame): boolean {
      const room = rooms.get(roomId);
      const c = room ? connections.get(room.paired.relay) : undefined;
      return !!c && c.isJoined(roomId) && c.send(frame);
    },
    dismissNotice(relay: string) {
      const { [relay]: _n, ...rest } = relayNotices;
      relayNotices = rest;
      changed();
    },
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
      if (!online) connections.forEach((c) => c.suspend());
      else connections.forEach((c) => c.kick());
    },
    /** U4.offline "Reconnect now": reconnect what is down and probe what claims to be up (D5). */
    reconnectNow: () => connections.forEach((c) => c.reconnectNow()),
    /** Writes pending offline-cache and draft updates now (the page is being hidden or unloaded). */
    flush: () => {
      cache.flush();
      drafts.flush();
    },
    kickAll: () => connections.forEach((c) => c.kick()),
    suspendAll: () => connections.forEach((c) => c.suspend()),
    close() {
      connections.forEach((c) => c.close());
      connections.clear();
      cache.flush();
      drafts.flush();
    },
  };
}
export type Client = ReturnType<typeof makeClient>;
