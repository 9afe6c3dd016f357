import type { Kv } from './kv.ts';
import type { MachineView } from './machine-view.ts';
import type { TimerHandle, Timeouts } from './socket.ts';
import type { TranscriptView } from './transcript-merge.ts';

// Offline reading: the last status, sessions, turn summaries, closed-card notes and fetched
// transcript pages of each machine are kept in IndexedDB and shown, with "as of hh:mm", when the
// machine or the link is away. Open approvals are not cached: an old card could mislead, and D8
// re-sends every open one when the phone joins (waiting.ts says why a waiting session has none).
//
// H10: the view is bounded (machine-view.ts) and written in parts, each only when it changed
// since it was last written: a new message rewrites the small status part and the one transcript
// it touched, never every session's transcript. Parts are coalesced for CACHE_WRITE_DELAY_MS.
export const CACHE_WRITE_DELAY_MS = 300;
const metaKey = (roomId: string) => `cache:${roomId}`;
const sessionsKey = (roomId: string) => `cache:${roomId}:sessions`;
const seenKey = (roomId: string) => `cache:${roomId}:seen`;
const transcriptKey = (roomId: string, sessionId: string) => `cache:${roomId}:t:${sessionId}`;

type Meta = Pick<
  MachineView,
  'status' | 'statusAt' | 'asOf' | 'instance' | 'retired' | 'closed'
> & { v: 2; transcripts: string[] };
type SessionsPart = Pick<MachineView, 'sessions' | 'finals'>;
type SeenPart = Pick<MachineView, 'frames' | 'ended'>;

export type Cached = Partial<
  Pick<
    MachineView,
    | 'status'
    | 'statusAt'
    | 'asOf'
    | 'instance'
    | 'retired'
    | 'closed'
    | 'sessions'
    | 'finals'
    | 'frames'
    | 'ended'
    | 'transcripts'
  >
>;

/** The first cache format kept everything under one key, with `{entries, more}` transcripts. */
type LegacyTranscript = { entries: TranscriptView['entries']; more: boolean };
function fromLegacy(old: Record<string, unknown>): Cached {
  const transcripts: Record<string, TranscriptView> = {};
  for (const [id, t] of Object.entries(
    (old.transcripts ?? {}) as Record<string, LegacyTranscript>,
  )) {
    const first = t.entries[0]?.seq ?? null;
    const last = t.entries.at(-1)?.seq ?? null;
    transcripts[id] = {
      entries: t.entries,
      spans: [{ lo: t.more ? first : null, hi: last }],
      touchedAt: 0,
    };
  }
  const { status, statusAt, sessions, finals, asOf } = old as Cached;
  return { status, statusAt, sessions, finals, asOf, transcripts };
}

export async function loadCachedView(kv: Kv, roomId: string): Promise<Cached | undefined> {
  const meta = await kv.get<Meta | Record<string, unknown>>(metaKey(roomId));
  if (!meta) return undefined;
  if ((meta as Meta).v !== 2) return fromLegacy(meta as Record<string, unknown>);
  const m = meta as Meta;
  const [sessions, seen, ...pages] = await Promise.all([
    kv.get<SessionsPart>(sessionsKey(roomId)),
    kv.get<SeenPart>(seenKey(roomId)),
    ...m.transcripts.map((id) => kv.get<TranscriptView>(transcriptKey(roomId, id))),
  ]);
  const transcripts: Record<string, TranscriptView> = {};
  m.transcripts.forEach((id, i) => {
    const page = pages[i];
    if (page) transcripts[id] = page;
  });
  const { v: _v, transcripts: _ids, ...rest } = m;
  return { ...rest, ...(sessions ?? {}), ...(seen ?? {}), transcripts };
}

/** What was last written for one machine, by reference (views are replaced, never mutated). */
type Written = {
  meta?: unknown[];
  sessions?: unknown[];
  seen?: unknown[];
  transcripts: Map<string, TranscriptView>;
};
const changed = (before: unknown[] | undefined, now: unknown[]) =>
  !before || before.some((x, i) => x !== now[i]);

export function makeViewCache(kv: Kv, timers: Timeouts) {
  const dirty = new Map<string, MachineView>();
  const written = new Map<string, Written>();
  let timer: TimerHandle | null = null;

  const write = (view: MachineView) => {
    const w: Written = written.get(view.roomId) ?? { transcripts: new Map() };
    written.set(view.roomId, w);
    const ids = Object.keys(view.transcripts);
    const meta = [view.status, view.statusAt, view.asOf, view.instance, view.retired, view.closed];
    const idsChanged =
      ids.length !== w.transcripts.size || ids.some((id) => !w.transcripts.has(id));
    if (changed(w.meta, meta) || idsChanged) {
      w.meta = meta;
      const value: Meta = {
        v: 2,
        status: view.status,
        statusAt: view.statusAt,
        asOf: view.asOf,
        instance: view.instance,
        retired: view.retired,
        closed: view.closed,
        transcripts: ids,
      };
      void kv.set(metaKey(view.roomId), value);
    }
    const sessions = [view.sessions, view.finals];
    if (changed(w.sessions, sessions)) {
      w.sessions = sessions;
      void kv.set(sessionsKey(view.roomId), { sessions: view.sessions, finals: view.finals });
    }
    const seen = [view.frames, view.ended];
    if (changed(w.seen, seen)) {
      w.seen = seen;
      void kv.set(seenKey(view.roomId), { frames: view.frames, ended: view.ended });
    }
    for (const id of ids) {
      const page = view.transcripts[id]!;
      if (w.transcripts.get(id) === page) continue;
      w.transcripts.set(id, page);
      void kv.set(transcriptKey(view.roomId, id), page);
    }
    // Evicted from the bounded view: evicted from the disk too.
    for (const id of [...w.transcripts.keys()]) {
      if (id in view.transcripts) continue;
      w.transcripts.delete(id);
      void kv.del(transcriptKey(view.roomId, id));
    }
  };

  const flush = () => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    for (const view of dirty.values()) write(view);
    dirty.clear();
  };
  return {
    /** Call once per machine after loading, so unchanged parts are not written again. */
    loaded(view: MachineView) {
      written.set(view.roomId, {
        meta: [view.status, view.statusAt, view.asOf, view.instance, view.retired, view.closed],
        sessions: [view.sessions, view.finals],
        seen: [view.frames, view.ended],
        transcripts: new Map(Object.entries(view.transcripts)),
      });
    },
    save(view: MachineView) {
      dirty.set(view.roomId, view);
      timer ??= timers.setTimeout(flush, CACHE_WRITE_DELAY_MS);
    },
    forget(roomId: string) {
      dirty.delete(roomId);
      const w = written.get(roomId);
      written.delete(roomId);
      // F4: transcripts the disk lists but this run never loaded go too (read before the deletes
      // below, which IndexedDB runs after it).
      const known = new Set(w?.transcripts.keys() ?? []);
      void kv.get<Partial<Meta>>(metaKey(roomId)).then((m) => {
        for (const id of Array.isArray(m?.transcripts) ? m.transcripts : [])
          if (!known.has(id)) void kv.del(transcriptKey(roomId, id));
      });
      void kv.del(metaKey(roomId));
      void kv.del(sessionsKey(roomId));
      void kv.del(seenKey(roomId));
      for (const id of w?.transcripts.keys() ?? []) void kv.del(transcriptKey(roomId, id));
    },
    flush,
  };
}
