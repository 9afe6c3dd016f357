import { clampText, MAX_FREE_TEXT_BYTES, TRUNCATION_SUFFIX } from '../../protocol/index.ts';
import { statement } from '../../device/lane/sqlite.ts';
import type { Store } from './store.ts';

// The conversation of one session (spec: `transcript`), kept in the machine's store so it
// survives a restart the way the real plugin's history does (U5). Pages are built backwards from
// the newest entry until the byte budget is spent, so a page always fits in one sealed envelope
// and `more` tells the phone that older entries remain. Each session keeps at most
// MAX_TRANSCRIPT_ENTRIES entries and MAX_TRANSCRIPT_BYTES of text; the oldest go first.
export const TRANSCRIPT_ROLES = { user: 'user', assistant: 'assistant' } as const;
export type TranscriptRole = (typeof TRANSCRIPT_ROLES)[keyof typeof TRANSCRIPT_ROLES];

export type StoredEntry = {
  readonly seq: number;
  readonly role: TranscriptRole;
  readonly text: string;
  readonly ts: number;
  readonly truncated?: true;
};

/**
 * Budget for the JSON of a page's `entries` array. A 16 KiB envelope holds base64 of
 * (24-byte nonce + 16-byte tag + plaintext) plus ~60 bytes of frame; the message around the
 * entries takes ~200 bytes more. 11 KiB leaves room for all of it.
 */
export const TRANSCRIPT_PAGE_BUDGET_BYTES = 11 * 1024;
export const MAX_TRANSCRIPT_ENTRIES = 5000;
export const MAX_TRANSCRIPT_BYTES = 1024 * 1024;
/** Entries held in memory while the store refuses writes (then the oldest of them go). */
export const MAX_UNSAVED_ENTRIES = 500;
const READ_CHUNK = 64;

export type TranscriptPage = { entries: StoredEntry[]; more: boolean };
export type TranscriptLimits = { entries: number; bytes: number };

export type TranscriptStore = {
  append(role: TranscriptRole, text: string, ts: number, truncated?: boolean): StoredEntry;
  /**
   * Appends the entries and runs `also` in the same write: all of it is kept or none of it. When
   * the write fails the entries wait in memory as after any failed write; `false` then.
   */
  appendWith(
    entries: ReadonlyArray<{ role: TranscriptRole; text: string }>,
    ts: number,
    also: () => void,
  ): boolean;
  page(options: { before?: number; budgetBytes?: number }): TranscriptPage;
  all(): StoredEntry[];
};

const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** Cuts an entry's text (never inside a code point) until its JSON fits `budget` bytes. */
function shrinkToFit(entry: StoredEntry, budget: number): StoredEntry {
  let chars = Array.from(entry.text);
  let candidate: StoredEntry = entry;
  while (jsonBytes(candidate) > budget && chars.length > 0) {
    chars = chars.slice(0, Math.floor(chars.length * 0.75));
    candidate = { ...entry, text: chars.join('') + '…[truncated]', truncated: true };
  }
  return candidate;
}

type Row = { seq: number; role: TranscriptRole; text: string; ts: number; truncated: number };
const toEntry = (r: Row): StoredEntry =>
  r.truncated
    ? { seq: r.seq, role: r.role, text: r.text, ts: r.ts, truncated: true }
    : { seq: r.seq, role: r.role, text: r.text, ts: r.ts };

export type Transcripts = ReturnType<typeof makeTranscripts>;

export function makeTranscripts(
  store: Store,
  limits: TranscriptLimits = { entries: MAX_TRANSCRIPT_ENTRIES, bytes: MAX_TRANSCRIPT_BYTES },
) {
  const db = store.db;
  const q = {
    stats: statement<[string], { last: number; n: number; bytes: number }>(
      db,
      `SELECT COALESCE(MAX(seq), 0) AS last, COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS bytes
       FROM transcript WHERE session_id = ?`,
    ),
    insert: db.prepare(
      'INSERT INTO transcript (session_id, seq, role, text, ts, truncated, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    oldest: statement<[string], { seq: number; bytes: number }>(
      db,
      'SELECT seq, bytes FROM transcript WHERE session_id = ? ORDER BY seq LIMIT 1',
    ),
    drop: db.prepare('DELETE FROM transcript WHERE session_id = ? AND seq = ?'),
    before: statement<[string, number, number], Row>(
      db,
      `SELECT seq, role, text, ts, truncated FROM transcript
       WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
    ),
    all: statement<[string], Row>(
      db,
      'SELECT seq, role, text, ts, truncated FROM transcript WHERE session_id = ? ORDER BY seq',
    ),
  };

  function forSession(sessionId: string): TranscriptStore {
    const stats = q.stats.get(sessionId)!;
    let nextSeq = stats.last + 1;
    let count = stats.n;
    let bytes = stats.bytes;
    // Appended but not yet written (the store refused): always the newest entries.
    let unsaved: StoredEntry[] = [];

    function flush(also?: () => void): boolean {
      let n = count;
      let b = bytes;
      const ok = store.write(`transcript of session ${sessionId.slice(0, 8)}`, () => {
        for (const e of unsaved) {
          const size = Buffer.byteLength(e.text, 'utf8');
          q.insert.run(sessionId, e.seq, e.role, e.text, e.ts, e.truncated ? 1 : 0, size);
          n += 1;
          b += size;
        }
        while (n > limits.entries || b > limits.bytes) {
          const old = q.oldest.get(sessionId);
          if (old === undefined) break;
          q.drop.run(sessionId, old.seq);
          n -= 1;
          b -= old.bytes;
        }
        also?.();
      });
      if (ok) {
        count = n;
        bytes = b;
        unsaved = [];
      } else if (unsaved.length > MAX_UNSAVED_ENTRIES) {
        unsaved = unsaved.slice(-MAX_UNSAVED_ENTRIES);
      }
      return ok;
    }

    function entry(role: TranscriptRole, raw: string, ts: number, wasTruncated?: boolean) {
      // Each entry is free text: clamped to 10 KiB like every other free-text field.
      const clamped = clampText(raw, { bytes: MAX_FREE_TEXT_BYTES, suffix: TRUNCATION_SUFFIX });
      const truncated = wasTruncated === true || clamped.truncated;
      const e: StoredEntry = truncated
        ? { seq: nextSeq++, role, text: clamped.text, ts, truncated: true }
        : { seq: nextSeq++, role, text: clamped.text, ts };
      unsaved.push(e);
      return e;
    }

    /** Newest first, from `before` down. */
    function* backwards(before: number): Generator<StoredEntry> {
      for (let i = unsaved.length - 1; i >= 0; i--) if (unsaved[i]!.seq < before) yield unsaved[i]!;
      let end = Math.min(before, unsaved[0]?.seq ?? Number.MAX_SAFE_INTEGER);
      for (;;) {
        const rows = q.before.all(sessionId, end, READ_CHUNK);
        for (const r of rows) yield toEntry(r);
        if (rows.length < READ_CHUNK) return;
        end = rows[rows.length - 1]!.seq;
      }
    }

    return {
      append(role, raw, ts, wasTruncated) {
        const e = entry(role, raw, ts, wasTruncated);
        flush();
        return e;
      },
      appendWith(entries, ts, also) {
        for (const e of entries) entry(e.role, e.text, ts);
        return flush(also);
      },
      page({ before, budgetBytes = TRANSCRIPT_PAGE_BUDGET_BYTES }) {
        if (unsaved.length > 0) flush();
        const picked: StoredEntry[] = [];
        let used = 2; // the array's brackets
        const it = backwards(before ?? Infinity);
        for (let next = it.next(); !next.done; next = it.next()) {
          const entry = next.value;
          const cost = jsonBytes(entry) + (picked.length > 0 ? 1 : 0);
          if (used + cost <= budgetBytes) {
            picked.push(entry);
            used += cost;
            continue;
          }
          // A single entry larger than the whole budget is cut rather than skipped, so paging
          // always makes progress.
          if (picked.length > 0) return { entries: picked.reverse(), more: true };
          picked.push(shrinkToFit(entry, budgetBytes - used));
          return { entries: picked, more: !it.next().done };
        }
        return { entries: picked.reverse(), more: false };
      },
      all: () => [...q.all.all(sessionId).map(toEntry), ...unsaved],
    };
  }

  return { forSession };
}
