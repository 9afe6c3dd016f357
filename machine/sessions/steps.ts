// The step trail of one turn (spec: Session.steps / stepCount). Consecutive repeats of a tool
// collapse into one entry with a count ("read ×5"); only the newest MAX_STEP_ENTRIES entries are
// kept; the true number of tool calls is reported only when entries were dropped.
export const MAX_STEP_ENTRIES = 20;

export type StepEntry = { readonly tool: string; readonly count: number };

export type StepTrail = {
  readonly entries: readonly StepEntry[];
  /** Tool calls this turn, including those in dropped entries. */
  readonly totalCalls: number;
  /** Calls that belong to entries no longer kept. */
  readonly droppedCalls: number;
};

export const EMPTY_TRAIL: StepTrail = { entries: [], totalCalls: 0, droppedCalls: 0 };

export function addStep(trail: StepTrail, tool: string, maxEntries = MAX_STEP_ENTRIES): StepTrail {
  const entries = [...trail.entries];
  const last = entries[entries.length - 1];
  if (last !== undefined && last.tool === tool) {
    entries[entries.length - 1] = { tool, count: last.count + 1 };
  } else {
    entries.push({ tool, count: 1 });
  }
  let droppedCalls = trail.droppedCalls;
  while (entries.length > maxEntries) {
    droppedCalls += entries.shift()!.count;
  }
  return { entries, totalCalls: trail.totalCalls + 1, droppedCalls };
}

/** What the wire carries: `{tool, count}` with `count` only for collapsed repeats ("read ×5"),
 * and `stepCount` only when the trail is not whole. */
export function trailForWire(trail: StepTrail): {
  steps: Array<{ tool: string; count?: number }>;
  stepCount?: number;
} {
  const steps = trail.entries.map((e) =>
    e.count > 1 ? { tool: e.tool, count: e.count } : { tool: e.tool },
  );
  return trail.droppedCalls > 0 ? { steps, stepCount: trail.totalCalls } : { steps };
}

/** Room left in a step for its note: the wire's step is a tool name of at most 256 chars. */
const MAX_STEP_NOTE_CHARS = 200;

/**
 * U5: a tool the human did not allow (or never answered) did not run, and the trail says so: the
 * newest call of `tool` becomes `<tool> (<why>)`, e.g. `write (denied)`, merged with an equal
 * neighbour like any repeat. E2 marks a call a rule allowed the same way:
 * `run (allowed by rule run: npm test)`.
 */
export function markLast(
  trail: StepTrail,
  tool: string,
  note: string,
  maxEntries = MAX_STEP_ENTRIES,
): StepTrail {
  const last = trail.entries[trail.entries.length - 1];
  if (last === undefined || last.tool !== tool) return trail;
  const entries = trail.entries.slice(0, -1);
  if (last.count > 1) entries.push({ tool, count: last.count - 1 });
  const why = note.length > MAX_STEP_NOTE_CHARS ? `${note.slice(0, MAX_STEP_NOTE_CHARS)}…` : note;
  const refused = `${tool} (${why})`;
  const before = entries[entries.length - 1];
  if (before !== undefined && before.tool === refused) {
    entries[entries.length - 1] = { tool: refused, count: before.count + 1 };
  } else {
    entries.push({ tool: refused, count: 1 });
  }
  let droppedCalls = trail.droppedCalls;
  while (entries.length > maxEntries) droppedCalls += entries.shift()!.count;
  return { entries, totalCalls: trail.totalCalls, droppedCalls };
}
