import type { PhoneMessage, PresenceAssertion } from '../../protocol/index.ts';
import type { Clock } from './clock.ts';
import {
  ACT_BLOCKS,
  NETWORK_STATES,
  type ActBlock,
  type ActResult,
  type NetworkState,
} from './client-types.ts';
import { ACTION_STATES, type ActionKind, type Outbox } from './outbox.ts';
import { phonesOffered, waitingEntry } from './phones.ts';
import type { makeReplyNotes } from './reply-notes.ts';
import type { RoomLink } from './room-link.ts';
import type { TimerHandle, Timeouts } from './socket.ts';
import type { ViewStore } from './view-store.ts';
import { PRESENCE_FAILURES, PresenceError } from './webauthn.ts';

/** E1: how long queued decisions wait for the machine's snapshot after a (re)join. */
export const SNAPSHOT_WAIT_MS = 5_000;

export type MessageFields = { type: PhoneMessage['type'] } & Record<string, unknown>;
/** E7: makes the presence assertion for one message's requestId and ts (null: none needed). */
export type PresenceFor = (requestId: string, ts: number) => Promise<PresenceAssertion | null>;
export type Decisions = ReturnType<typeof makeDecisions>;

// Decisions and the outbox: every action is checked (can it go out now?), stamped, persisted,
// then sent (reads are stamped and sent, not kept); after a (re)join what was not confirmed is re-sent (D10), decisions only once the
// machine's snapshot said which cards are still open (E1).
export function makeDecisions(options: {
  link: RoomLink;
  views: ViewStore;
  outbox: Outbox;
  replyNotes: ReturnType<typeof makeReplyNotes>;
  clock: Clock;
  timers: Timeouts;
  now: () => number;
  uuid: () => string;
  log: (line: string) => void;
  network: () => NetworkState;
}) {
  const { link, views, outbox, replyNotes, clock, timers, now, log } = options;
  // E6: every action names its phone, only to a machine that announced phones (EC).
  const sender = (roomId: string): { phoneId?: string } => {
    const phone = link.room(roomId)?.paired.phone;
    return phone && phonesOffered(views.get(roomId)) ? { phoneId: phone.phoneId } : {};
  };
  /** Stamps and sends a message that is not kept (a read, a registration); null when not sent. */
  const send = (roomId: string, fields: MessageFields) => {
    const message = {
      v: 1,
      ts: clock.machineNow(roomId),
      ...sender(roomId),
      ...fields,
    } as PhoneMessage;
    return link.transmit(roomId, message) ? message : null;
  };
  // E1: after a (re)join, queued decisions wait for the machine's snapshot, so a decision for a
  // card the machine no longer holds is dropped instead of re-sent.
  // A machine that never answers sessions.get must not hold decisions back for ever: after
  // SNAPSHOT_WAIT_MS they are re-sent as before E1 (D10).
  const awaitingSnapshot = new Map<string, TimerHandle>();
  const awaitSnapshot = (roomId: string) => {
    if (awaitingSnapshot.has(roomId)) return;
    awaitingSnapshot.set(
      roomId,
      timers.setTimeout(() => {
        if (awaitingSnapshot.delete(roomId)) resend(roomId);
      }, SNAPSHOT_WAIT_MS),
    );
  };
  const snapshotCame = (roomId: string): boolean => {
    const timer = awaitingSnapshot.get(roomId);
    if (timer === undefined) return false;
    timers.clearTimeout(timer);
    return awaitingSnapshot.delete(roomId);
  };

  const resend = (roomId: string) => {
    const waitForSnapshot = awaitingSnapshot.has(roomId);
    for (const entry of outbox.due(roomId)) {
      const decision = entry.kind === 'approval' || entry.kind === 'question';
      if (decision && waitForSnapshot) continue;
      if (link.transmit(roomId, entry.message)) outbox.noteResent(entry.requestId);
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
    const room = link.room(roomId);
    const view = views.get(roomId);
    if (!room || !view) return ACT_BLOCKS.unknownMachine;
    if (options.network() === NETWORK_STATES.offline) return ACT_BLOCKS.noNetwork;
    if (!link.joined(roomId)) return ACT_BLOCKS.offline;
    if (!view.machineOnline) return ACT_BLOCKS.machineOffline;
    if (view.repairNeeded) return ACT_BLOCKS.repairNeeded;
    if (waitingEntry(view, link.room(roomId)?.paired.phone?.phoneId))
      return ACT_BLOCKS.phonePending;
    return null;
  };

  // Every action is persisted before it goes out, so a crash between the two re-sends it.
  const act = async (
    roomId: string,
    kind: ActionKind,
    targetOf: (requestId: string) => string,
    fields: MessageFields,
    presence?: PresenceFor,
  ): Promise<ActResult> => {
    // One decision per approval or question (one Stop per session, one revoke per rule): a
    // second tap returns the first action, unsent.
    if (kind !== 'dispatch' && kind !== 'message') {
      const existing = outbox.find(kind, roomId, targetOf(''));
      if (existing) return { ok: true, requestId: existing.requestId };
    }
    const block = blocked(roomId);
    if (block) return { ok: false, code: block };
    const requestId = options.uuid();
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
    if (!link.transmit(roomId, message)) outbox.markUnconfirmed(roomId);
    return { ok: true, requestId };
  };

  return {
    send,
    /** The ts a message for this room carries now (the machine's clock as this phone knows it). */
    stamp: (roomId: string) => clock.machineNow(roomId),
    awaitSnapshot,
    snapshotCame,
    awaitingSnapshot: (roomId: string) => awaitingSnapshot.has(roomId),
    resend,
    blocked,
    act,
  };
}
