import type { TranscriptEntry, TurnFinal } from '../../protocol/index.ts';
import type { ClosedNote } from './machine-view.ts';

// E11 / SC1: one session as one conversation, oldest first and newest last: what the owner typed,
// the agent's text, each tool call (recognised from the agent's own transcript lines), every
// approval and question at the point it was asked with the outcome chosen, and the turn's end.
// Open cards are not items: the screen pins them after the last item. Pure, so vitest drives it.

/** A tool call as the agent's transcript says it: `$ cmd` + output + `(exit N)`, or `Read p:` + text. */
export type ToolCall = { name: string; line: string; output: string };

export type TimelineItem =
  | { kind: 'text'; key: string; ts: number; role: 'user' | 'assistant'; entry: TranscriptEntry }
  | { kind: 'tool'; key: string; ts: number; entry: TranscriptEntry; call: ToolCall }
  | { kind: 'outcome'; key: string; ts: number; note: ClosedNote }
  | { kind: 'final'; key: string; ts: number; final: TurnFinal };

/** Lines of tool output shown before "Show all". */
export const TOOL_OUTPUT_FOLDED_LINES = 6;

/** The mock's and the adapters' tool lines; anything else is the agent's prose. */
export function toolCallOf(entry: TranscriptEntry): ToolCall | null {
  if (entry.role !== 'assistant') return null;
  const [first = '', ...rest] = entry.text.split('\n');
  if (first.startsWith('$ ') && first.length > 2) {
    return { name: 'run', line: first.slice(2), output: rest.join('\n') };
  }
  const read = /^Read (\S.*):$/.exec(first);
  if (read && rest.length > 0) return { name: 'read', line: read[1]!, output: rest.join('\n') };
  return null;
}

/**
 * Where a closed card sits: when it was asked (machine time, like transcript entries), else when
 * it closed. Outcomes of the same instant come before the entry that follows the decision.
 */
const noteTs = (n: ClosedNote) => n.askedTs ?? n.ts;

export function timelineOf(
  entries: readonly TranscriptEntry[],
  notes: readonly ClosedNote[],
  final: TurnFinal | undefined,
): TimelineItem[] {
  const items: TimelineItem[] = entries.map((entry) => {
    const call = toolCallOf(entry);
    return call
      ? { kind: 'tool', key: `e${entry.seq}`, ts: entry.ts, entry, call }
      : { kind: 'text', key: `e${entry.seq}`, ts: entry.ts, role: entry.role, entry };
  });
  // Only outcomes inside (or after) the held range: older ones wait until that page is loaded.
  const from = entries[0]?.ts ?? -Infinity;
  for (const note of notes) {
    if (noteTs(note) < from) continue;
    items.push({ kind: 'outcome', key: `${note.kind}-${note.id}`, ts: noteTs(note), note });
  }
  if (final) items.push({ kind: 'final', key: `final-${final.ts}`, ts: final.ts, final });
  const rank = (i: TimelineItem) => (i.kind === 'outcome' ? 0 : i.kind === 'final' ? 2 : 1);
  // Stable: entries keep their seq order; ties in time put an outcome first, the turn's end last.
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => a.item.ts - b.item.ts || rank(a.item) - rank(b.item) || a.index - b.index)
    .map((x) => x.item);
}

/** The outcome words of a closed card, as a key of the app's strings and its parameters. */
export type OutcomeWords = { key: string; params: Record<string, string> };

export function outcomeOf(note: ClosedNote): OutcomeWords {
  const c = note.chosen;
  if (note.kind === 'question') {
    if (note.resolution === 'phone' && c?.labels !== undefined)
      return { key: 'tl.answered', params: { labels: c.labels.join(', ') } };
    return { key: `closed.question.${note.resolution}`, params: {} };
  }
  if (note.resolution === 'allow') {
    // Decided elsewhere (another phone, a notification): the scope is not known here.
    if (c === undefined) return { key: 'tl.allowed', params: {} };
    if (c.edited !== undefined) return { key: 'tl.allowedEdited', params: {} };
    if (c.scope === 'session') return { key: 'tl.allowedSession', params: {} };
    if (c.scope === 'always') return { key: 'tl.allowedAlways', params: { key: c.ruleKey ?? '' } };
    return { key: 'tl.allowedOnce', params: {} };
  }
  if (note.resolution === 'deny') {
    return c?.message
      ? { key: 'tl.deniedSaying', params: { message: c.message } }
      : { key: 'tl.denied', params: {} };
  }
  return { key: `closed.approval.${note.resolution}`, params: {} };
}

/** A turn's end in the owner's words: stopped by them is never an error (E4, E11). */
export function finalWords(
  final: TurnFinal,
): 'tl.final.ok' | 'tl.final.stopped' | 'tl.final.machineStopped' | 'tl.final.failed' {
  if (final.ok) return 'tl.final.ok';
  if (final.reason === 'interrupted') return 'tl.final.stopped';
  // E11.7: the machine's own stop cut the turn short: neither a failure nor the owner's stop.
  if (final.reason === 'machine-stopped') return 'tl.final.machineStopped';
  return 'tl.final.failed';
}
