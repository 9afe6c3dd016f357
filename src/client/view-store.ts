import type { ClientState } from './client-types.ts';
import type { makeViewCache } from './offline-cache.ts';
import type { MachineView } from './view-types.ts';

// The views of every paired machine, and the one change signal the screens subscribe to. The
// client's state is composed (by makeClient) at most once per change: screens read it often.
export type ViewStore = ReturnType<typeof makeViewStore>;

export function makeViewStore(options: {
  cache: ReturnType<typeof makeViewCache>;
  compose: () => ClientState;
}) {
  let views: Record<string, MachineView> = {};
  let snapshot: ClientState | null = null;
  const listeners = new Set<() => void>();

  const changed = () => {
    snapshot = null;
    for (const fn of listeners) fn();
  };

  return {
    changed,
    get: (roomId: string): MachineView | undefined => views[roomId],
    /** Replaces a view without telling anyone (the caller signals the change). */
    put(roomId: string, view: MachineView) {
      views = { ...views, [roomId]: view };
    },
    /** Replaces a view, saves it for offline reading when asked, and signals the change. */
    set(roomId: string, next: MachineView, persist = false) {
      views = { ...views, [roomId]: next };
      if (persist) options.cache.save(next);
      changed();
    },
    /** Removes a view without telling anyone (the caller signals the change). */
    remove(roomId: string) {
      const { [roomId]: _gone, ...rest } = views;
      views = rest;
    },
    state(): ClientState {
      snapshot ??= options.compose();
      return snapshot;
    },
    subscribe(fn: () => void) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
