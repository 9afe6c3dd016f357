import type { Kv } from './kv.ts';
import type { MachineView } from './machine-view.ts';
import type { Timers } from './socket.ts';

// Offline reading: the last status, sessions, turn summaries and fetched transcript pages of
// each machine are written to IndexedDB (coalesced) and shown, with "as of hh:mm", when the
// machine or the link is away. Open approvals are not cached: an old card could mislead, and
// D8 re-sends every open one when the phone joins.
export const CACHE_WRITE_DELAY_MS = 300;
const keyOf = (roomId: string) => `cache:${roomId}`;

type Cached = Pick<
  MachineView,
  'status' | 'statusAt' | 'sessions' | 'finals' | 'transcripts' | 'asOf'
>;

export async function loadCachedView(kv: Kv, roomId: string): Promise<Cached | undefined> {
  return kv.get<Cached>(keyOf(roomId));
}

export function makeViewCache(kv: Kv, timers: Timers) {
  const dirty = new Map<string, MachineView>();
  let timer: unknown = null;
  const flush = () => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    for (const view of dirty.values()) {
      const cached: Cached = {
        status: view.status,
        statusAt: view.statusAt,
        sessions: view.sessions,
        finals: view.finals,
        transcripts: view.transcripts,
        asOf: view.asOf,
      };
      void kv.set(keyOf(view.roomId), cached);
    }
    dirty.clear();
  };
  return {
    save(view: MachineView) {
      dirty.set(view.roomId, view);
      timer ??= timers.setTimeout(flush, CACHE_WRITE_DELAY_MS);
    },
    forget(roomId: string) {
      dirty.delete(roomId);
      void kv.del(keyOf(roomId));
    },
    flush,
  };
}
