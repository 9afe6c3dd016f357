import { clampText, MAX_FREE_TEXT_BYTES, TRUNCATION_SUFFIX } from '../protocol/index.ts';

// The conversation of one session (spec: `transcript`). Pages are built backwards from the
// newest entry until the byte budget is spent, so a page always fits in one sealed envelope and
// `more` tells the phone that older entries remain.
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

export type TranscriptPage = { entries: StoredEntry[]; more: boolean };

export type TranscriptStore = {
  append(role: TranscriptRole, text: string, ts: number, truncated?: boolean): StoredEntry;
  page(options: { before?: number; budgetBytes?: number }): TranscriptPage;
  all(): readonly StoredEntry[];
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

export function makeTranscriptStore(maxEntries = MAX_TRANSCRIPT_ENTRIES): TranscriptStore {
  const entries: StoredEntry[] = [];
  let nextSeq = 1;
  return {
    append(role, raw, ts, wasTruncated) {
      // Each entry is free text: clamped to 10 KiB like every other free-text field.
      const clamped = clampText(raw, { bytes: MAX_FREE_TEXT_BYTES, suffix: TRUNCATION_SUFFIX });
      const text = clamped.text;
      const truncated = wasTruncated === true || clamped.truncated;
      const entry: StoredEntry = truncated
        ? { seq: nextSeq++, role, text, ts, truncated: true }
        : { seq: nextSeq++, role, text, ts };
      entries.push(entry);
      if (entries.length > maxEntries) entries.shift();
      return entry;
    },
    page({ before, budgetBytes = TRANSCRIPT_PAGE_BUDGET_BYTES }) {
      let end = entries.length;
      if (before !== undefined) {
        while (end > 0 && entries[end - 1]!.seq >= before) end--;
      }
      const picked: StoredEntry[] = [];
      let used = 2; // the array's brackets
      let i = end - 1;
      for (; i >= 0; i--) {
        const entry = entries[i]!;
        const cost = jsonBytes(entry) + (picked.length > 0 ? 1 : 0);
        if (used + cost > budgetBytes) {
          // A single entry larger than the whole budget is cut rather than skipped, so paging
          // always makes progress.
          if (picked.length === 0) {
            picked.push(shrinkToFit(entry, budgetBytes - used));
            i--;
          }
          break;
        }
        picked.push(entry);
        used += cost;
      }
      return { entries: picked.reverse(), more: i >= 0 };
    },
    all: () => entries,
  };
}
