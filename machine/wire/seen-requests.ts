import { REQUEST_WINDOW_MS } from '../../protocol/index.ts';
import { statement } from '../../device/lane/sqlite.ts';
import type { Store } from '../sessions/store.ts';

// H3: every phone action's requestId, with when it was first seen, kept in the store for twice
// the D11 window. D11 accepts an action while |ts − now| ≤ W, so an id first seen at t carried
// ts ≤ t + W and a replay of it is accepted by the clock rule only until t + 2W: remembering it
// that long (across restarts) is exactly enough to refuse every replay, and nothing the clock
// rule would not refuse anyway is kept. The count is bounded too: past MAX_SEEN_REQUESTS within
// the window new actions are refused (a phone flood), never an old id forgotten early.

export const MAX_SEEN_REQUESTS = 100_000;

export type Remembered = 'recorded' | 'store-failed' | 'full';

export type SeenRequests = {
  /** True when the id was seen within the last 2 × W, by this process or an earlier one. */
  seen(requestId: string): boolean;
  /**
   * Records the id before the action runs; anything but `recorded` means: do not run it. E6:
   * with the `phoneId` the action claims (absent from an older phone).
   */
  remember(requestId: string, type: string, phoneId?: string): Remembered;
};

export function makeSeenRequests(
  store: Store,
  o: { now: () => number; windowMs?: number; max?: number },
): SeenRequests {
  const keepMs = 2 * (o.windowMs ?? REQUEST_WINDOW_MS);
  const max = o.max ?? MAX_SEEN_REQUESTS;
  const db = store.db;
  const q = {
    get: statement<[string, number], { seen_at: number }>(
      db,
      'SELECT seen_at FROM seen_requests WHERE request_id = ? AND seen_at >= ?',
    ),
    insert: db.prepare(
      'INSERT OR IGNORE INTO seen_requests (request_id, type, seen_at, phone_id) VALUES (?, ?, ?, ?)',
    ),
    prune: db.prepare('DELETE FROM seen_requests WHERE seen_at < ?'),
    count: statement<[], { n: number }>(db, 'SELECT COUNT(*) AS n FROM seen_requests'),
  };
  let count = q.count.get()!.n;
  let pruned = 0;
  if (store.write('forget old request ids', () => (pruned = q.prune.run(o.now() - keepMs).changes)))
    count -= pruned;

  return {
    seen: (requestId) => q.get.get(requestId, o.now() - keepMs) !== undefined,
    remember(requestId, type, phoneId) {
      const now = o.now();
      let n = count;
      let full = false;
      const ok = store.write(
        'remember a request id',
        () => {
          n -= q.prune.run(now - keepMs).changes;
          if (n >= max) {
            full = true;
            return;
          }
          n += q.insert.run(requestId, type, now, phoneId ?? null).changes;
        },
        { durable: true },
      );
      if (!ok) return 'store-failed';
      count = n;
      return full ? 'full' : 'recorded';
    },
  };
}
