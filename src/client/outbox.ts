import { REQUEST_WINDOW_MS, type MachineMessage, type PhoneMessage } from '../../protocol/index.ts';
import type { Kv } from './kv.ts';
import type { TimerHandle, Timeouts } from './socket.ts';

// D10: every action is kept (in IndexedDB) from the moment it is sent until the machine's
// matching confirmation arrives, shown as Sent, then Unconfirmed when the link dropped or the
// confirmation is late, and re-sent with the same requestId — and the same `ts` — after a
// reconnect or an app restart. Keeping the original `ts` means a copy older than the machine's
// request window is refused as `stale-request` instead of being applied twice; such entries are
// shown as Expired and never re-sent.
export const OUTBOX_KEY = 'outbox';
export const CONFIRM_DEADLINE_MS = 10_000;
// Leave a margin so a re-send still lands inside the machine's window despite clock error.
export const RESEND_WINDOW_MS = REQUEST_WINDOW_MS - 30_000;

export const ACTION_KINDS = {
  approval: 'approval',
  question: 'question',
  dispatch: 'dispatch',
  message: 'message',
  /** E2: rule.revoke, target = the ruleId. */
  rule: 'rule',
  /** E4: session.interrupt, target = the sessionId. */
  interrupt: 'interrupt',
} as const;
export type ActionKind = (typeof ACTION_KINDS)[keyof typeof ACTION_KINDS];

export const ACTION_STATES = {
  sent: 'sent',
  unconfirmed: 'unconfirmed',
  expired: 'expired',
} as const;
export type ActionState = (typeof ACTION_STATES)[keyof typeof ACTION_STATES];

export type OutboxEntry = {
  requestId: string;
  roomId: string;
  kind: ActionKind;
  /** approvalId, questionId, sessionId (message, interrupt), ruleId (rule) or requestId (dispatch). */
  targetId: string;
  message: PhoneMessage;
  state: ActionState;
  createdAt: number;
  sendCount: number;
};

export type Outbox = {
  load(): Promise<void>;
  entries(): readonly OutboxEntry[];
  find(kind: ActionKind, roomId: string, targetId: string): OutboxEntry | undefined;
  /** Records a new action as Sent (persisted before it is handed to the socket). */
  add(entry: Omit<OutboxEntry, 'state' | 'sendCount'>): Promise<void>;
  /** Marks every Sent entry of the room Unconfirmed (its socket dropped). */
  markUnconfirmed(roomId: string): void;
  /** Entries to re-send for a room that just (re)joined; expires the old ones. */
  due(roomId: string): OutboxEntry[];
  noteResent(requestId: string): void;
  /** Applies a machine message; returns the entries it confirmed. */
  confirm(roomId: string, message: MachineMessage): OutboxEntry[];
  remove(requestId: string): void;
  forgetRoom(roomId: string): void;
  /** E6: after a `room.rotate` the actions still waiting go to the machine in its new room. */
  moveRoom(from: string, to: string): void;
};

/** E7: why the machine refused an allow and left its approval pending. */
export const PRESENCE_REFUSALS: readonly string[] = [
  'presence-required',
  'presence-invalid',
  'phone-revoked',
];
const MESSAGE_REFUSALS: readonly string[] = [
  'message-too-long-chars',
  'message-too-long-bytes',
  'no-remote-followup',
  'stale-request',
];
/** An `error` pinned to a session that answers a session.message (spec: "a refused session.message"). */
export function refusesMessage(m: { reason?: string; context?: string }): boolean {
  if (m.reason !== undefined) return MESSAGE_REFUSALS.includes(m.reason);
  return m.context === undefined || m.context === 'session.message';
}

export function makeOutbox(options: {
  kv: Kv;
  now: () => number;
  onChange: () => void;
  timers: Timeouts;
}): Outbox {
  const { kv, now, onChange, timers } = options;
  let list: OutboxEntry[] = [];
  const deadlines = new Map<string, TimerHandle>();

  const persist = () => {
    onChange();
    void kv.set(OUTBOX_KEY, list);
  };
  const update = (requestId: string, patch: Partial<OutboxEntry>) => {
    list = list.map((e) => (e.requestId === requestId ? { ...e, ...patch } : e));
  };
  const armDeadline = (requestId: string) => {
    const old = deadlines.get(requestId);
    if (old !== undefined) timers.clearTimeout(old);
    deadlines.set(
      requestId,
      timers.setTimeout(() => {
        deadlines.delete(requestId);
        const entry = list.find((e) => e.requestId === requestId);
        if (entry?.state !== ACTION_STATES.sent) return;
        update(requestId, { state: ACTION_STATES.unconfirmed });
        persist();
      }, CONFIRM_DEADLINE_MS),
    );
  };
  const drop = (ids: Set<string>) => {
    for (const id of ids) {
      const t = deadlines.get(id);
      if (t !== undefined) timers.clearTimeout(t);
      deadlines.delete(id);
    }
    list = list.filter((e) => !ids.has(e.requestId));
  };

  const matches = (e: OutboxEntry, message: MachineMessage): boolean => {
    switch (message.type) {
      case 'approval.closed':
        return e.kind === 'approval' && e.targetId === message.approvalId;
      case 'question.closed':
        return e.kind === 'question' && e.targetId === message.questionId;
      case 'dispatch.result':
        return e.kind === 'dispatch' && e.requestId === message.requestId;
      case 'session.update':
        return e.kind === 'message' && e.targetId === message.session.sessionId;
      case 'turn.final':
        // E4: the turn ended (interrupted, or finished before the Stop arrived).
        return e.kind === 'interrupt' && e.targetId === message.sessionId;
      case 'rules':
        // E2: the reply to this revoke, or any list without the rule: either way it is gone.
        return (
          e.kind === 'rule' &&
          (message.requestId === e.requestId || !message.rules.some((r) => r.ruleId === e.targetId))
        );
      case 'error':
        // E4: nothing was running to stop; answered, not lost.
        if (e.kind === 'interrupt')
          return message.sessionId === e.targetId && message.reason === 'not-running';
        // A refused session.message is pinned to its session: it is answered, not lost. Errors
        // about something else in that session (a crashed turn, a transcript) are not refusals.
        if (e.kind === 'message')
          return message.sessionId === e.targetId && refusesMessage(message);
        // D11: the machine no longer holds the card this decision was for. E7: an allow refused
        // for want of presence is answered too — the card stays pending and may be tried again.
        return (
          (e.kind === 'approval' || e.kind === 'question') &&
          message.context === e.targetId &&
          (message.reason === 'not-pending' ||
            (e.kind === 'approval' && PRESENCE_REFUSALS.includes(message.reason ?? '')))
        );
      default:
        return false;
    }
  };

  return {
    async load() {
      const stored = await kv.get<OutboxEntry[]>(OUTBOX_KEY);
      // Whatever survived a restart was never confirmed.
      list = (stored ?? []).map((e) =>
        e.state === ACTION_STATES.sent ? { ...e, state: ACTION_STATES.unconfirmed } : e,
      );
      onChange();
    },
    entries: () => list,
    find: (kind, roomId, targetId) =>
      list.find((e) => e.kind === kind && e.roomId === roomId && e.targetId === targetId),
    async add(entry) {
      list = [...list, { ...entry, state: ACTION_STATES.sent, sendCount: 1 }];
      onChange();
      try {
        await kv.set(OUTBOX_KEY, list);
      } catch (e) {
        // Not stored means not sent: the action would not survive a restart, so it is refused.
        list = list.filter((x) => x.requestId !== entry.requestId);
        onChange();
        throw e;
      }
      armDeadline(entry.requestId);
    },
    markUnconfirmed(roomId) {
      let changed = false;
      list = list.map((e) => {
        if (e.roomId !== roomId || e.state !== ACTION_STATES.sent) return e;
        changed = true;
        return { ...e, state: ACTION_STATES.unconfirmed };
      });
      if (changed) persist();
    },
    due(roomId) {
      const t = now();
      let changed = false;
      list = list.map((e) => {
        if (e.roomId !== roomId || e.state === ACTION_STATES.expired) return e;
        if (t - e.createdAt <= RESEND_WINDOW_MS) return e;
        changed = true;
        return { ...e, state: ACTION_STATES.expired };
      });
      if (changed) persist();
      return list.filter((e) => e.roomId === roomId && e.state === ACTION_STATES.unconfirmed);
    },
    noteResent(requestId) {
      const entry = list.find((e) => e.requestId === requestId);
      if (!entry) return;
      update(requestId, { state: ACTION_STATES.sent, sendCount: entry.sendCount + 1 });
      persist();
      armDeadline(requestId);
    },
    confirm(roomId, message) {
      const done = list.filter((e) => e.roomId === roomId && matches(e, message));
      if (done.length === 0) return [];
      drop(new Set(done.map((e) => e.requestId)));
      persist();
      return done;
    },
    remove(requestId) {
      drop(new Set([requestId]));
      persist();
    },
    forgetRoom(roomId) {
      drop(new Set(list.filter((e) => e.roomId === roomId).map((e) => e.requestId)));
      persist();
    },
    moveRoom(from, to) {
      list = list.map((e) =>
        e.roomId !== from
          ? e
          : {
              ...e,
              roomId: to,
              state: e.state === ACTION_STATES.sent ? ACTION_STATES.unconfirmed : e.state,
            },
      );
      persist();
    },
  };
}
