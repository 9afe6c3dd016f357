import type { Timers, TimerHandle } from '../timers.ts';

// Spec: "Machines coalesce activity-only updates (800ms) so a tool-heavy turn cannot flood a
// phone; state changes are never delayed behind them." Per session: an activity-only change is
// sent at once if nothing went out for that session within the window, otherwise once when the
// window ends (carrying the latest activity). A state change is sent at once and cancels any
// pending activity-only send, since the full session it carries already includes the activity.
export type UpdateScheduler = {
  stateChanged(sessionId: string): void;
  activityChanged(sessionId: string): void;
  close(): void;
};

export function makeUpdateScheduler(options: {
  coalesceMs: number;
  timers: Timers;
  emit: (sessionId: string) => void;
}): UpdateScheduler {
  const { coalesceMs, timers, emit } = options;
  const lastSentAt = new Map<string, number>();
  const pending = new Map<string, TimerHandle>();

  const send = (sessionId: string): void => {
    lastSentAt.set(sessionId, timers.now());
    emit(sessionId);
  };

  return {
    stateChanged(sessionId) {
      const t = pending.get(sessionId);
      if (t !== undefined) {
        timers.clearTimeout(t);
        pending.delete(sessionId);
      }
      send(sessionId);
    },
    activityChanged(sessionId) {
      if (pending.has(sessionId)) return;
      const since = timers.now() - (lastSentAt.get(sessionId) ?? -Infinity);
      if (since >= coalesceMs) {
        send(sessionId);
        return;
      }
      const handle = timers.setTimeout(() => {
        pending.delete(sessionId);
        send(sessionId);
      }, coalesceMs - since);
      pending.set(sessionId, handle);
    },
    close() {
      for (const t of pending.values()) timers.clearTimeout(t);
      pending.clear();
    },
  };
}
