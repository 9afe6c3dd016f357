import type { TranscriptEntry } from '../../protocol/index.ts';

// U3: the transcript never shrinks. Fetched pages are merged by `seq` into one ordered list with
// no duplicates, and the phone remembers which ranges of the conversation it holds completely
// ("spans"), so a gap between two ranges is shown as a gap (and filled), never as the start of
// the conversation, and a newer page never replaces older entries already on screen.
//
// A span is { lo, hi }: every entry with lo <= seq <= hi is held. lo = null means "from the very
// start". `joins` = the span reaches up to (not including) that seq: an older page asked with
// `before = B` covers everything below B even when its last entry is below B - 1 (the machine
// may skip entries it does not show). Seqs are integers, so hi + 1 = lo is contiguous too.
export type Span = { lo: number | null; hi: number | null; joins?: number };
export type TranscriptView = {
  entries: TranscriptEntry[];
  spans: Span[];
  reason?: string;
  /** Phone time of the last page merged (least recently used transcripts are dropped first). */
  touchedAt: number;
};

/**
 * At most this many entries are kept per session in memory (the newest); older ones are fetched
 * again. SC1: enough that scrolling up through a long session (paged 11 KiB at a time) keeps what
 * it loaded — at 300 an older page beyond the cap was dropped as soon as it merged, so the
 * conversation could never be read back further. The disk keeps fewer (offline-cache.ts).
 */
export const MAX_TRANSCRIPT_ENTRIES_KEPT = 2000;
/** H10: entries per session written to the offline cache (the newest). */
export const MAX_TRANSCRIPT_ENTRIES_CACHED = 300;

const below = (a: number | null, b: number | null) =>
  a === null ? b !== null : b !== null && a < b;

function touches(lower: Span, upper: Span): boolean {
  if (upper.lo === null) return true;
  if (lower.joins !== undefined && lower.joins >= upper.lo) return true;
  return lower.hi !== null && lower.hi + 1 >= upper.lo;
}

function mergeSpans(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => (below(a.lo, b.lo) ? -1 : below(b.lo, a.lo) ? 1 : 0));
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && touches(last, s)) {
      const hi = last.hi === null ? s.hi : s.hi === null ? last.hi : Math.max(last.hi, s.hi);
      const joins =
        last.joins === undefined
          ? s.joins
          : s.joins === undefined
            ? last.joins
            : Math.max(last.joins, s.joins);
      out[out.length - 1] = { lo: last.lo, hi, ...(joins !== undefined ? { joins } : {}) };
    } else out.push({ ...s });
  }
  return out;
}

function union(a: readonly TranscriptEntry[], b: readonly TranscriptEntry[]): TranscriptEntry[] {
  const bySeq = new Map<number, TranscriptEntry>();
  for (const e of a) bySeq.set(e.seq, e);
  for (const e of b) bySeq.set(e.seq, e); // the page just fetched is the newer word
  return [...bySeq.values()].sort((x, y) => x.seq - y.seq);
}

/** Drops the oldest entries beyond the cap; the remaining first span no longer reaches the start. */
export function cap(view: TranscriptView, max: number): TranscriptView {
  if (view.entries.length <= max) return view;
  const entries = view.entries.slice(view.entries.length - max);
  const first = entries[0]!.seq;
  const spans = view.spans
    .filter((s) => s.hi === null || s.hi >= first || (s.joins ?? -Infinity) > first)
    .map((s) => (s.lo === null || s.lo < first ? { ...s, lo: first } : s));
  return { ...view, entries, spans };
}

export type Page = { entries: readonly TranscriptEntry[]; more: boolean; reason?: string };

/** Merges one `transcript` reply; `before` is what the request asked for (absent = newest). */
export function mergePage(
  previous: TranscriptView | undefined,
  page: Page,
  before: number | undefined,
  at: number,
  max = MAX_TRANSCRIPT_ENTRIES_KEPT,
): TranscriptView {
  const first = page.entries[0]?.seq;
  const last = page.entries.at(-1)?.seq;
  const lo = page.more ? (first ?? null) : null;
  let span: Span | null;
  if (before === undefined) {
    // Nothing held and "more" with no entry says nothing; otherwise the page covers lo..last.
    span = page.more && first === undefined ? null : { lo, hi: last ?? null };
  } else {
    span = page.more && first === undefined ? null : { lo, hi: last ?? null, joins: before };
  }
  const spans = mergeSpans([...(previous?.spans ?? []), ...(span ? [span] : [])]);
  const merged: TranscriptView = {
    entries: union(previous?.entries ?? [], page.entries),
    spans,
    touchedAt: at,
    ...(page.reason !== undefined ? { reason: page.reason } : {}),
  };
  return cap(merged, max);
}

/** True when the held entries reach back to the start of the conversation. */
export const reachesStart = (t: TranscriptView): boolean => t.spans[0]?.lo === null;

/** The `before` to ask for older entries, or null at the start. */
export function olderCursor(t: TranscriptView): number | null {
  const lo = t.spans[0]?.lo;
  return lo === undefined || lo === null ? null : lo;
}

/**
 * Where the held entries are not known to be contiguous: just before the entry with seq
 * `before` (the first of a later span); fetching with that `before` fills it.
 */
export function gapsOf(t: TranscriptView): number[] {
  return t.spans.slice(1).flatMap((s) => (s.lo === null ? [] : [s.lo]));
}
