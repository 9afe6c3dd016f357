// F1: the agent's Markdown cannot overflow the renderer. marked lexes every quote and list
// level by recursing into it (and re-reads the level's text each time), so a few KiB of `>>>>…`
// or `- - - …` overflowed the stack and the error screen replaced the app, and a staircase of
// indented items took seconds. Before lexing, each line may open at most MAX_NESTING containers;
// the marker that would open one more is escaped, so that level and everything deeper on the line
// is shown as the plain text it is, inside the deepest level allowed.
//
// Depth is counted on the line's own prefix, which bounds it: a line is inside a quote only by
// repeating its `>`, and inside a nested list item only by its indentation (a nested item needs
// at least two more columns than its parent) — a lazy continuation line opens nothing.
// So each `>` or list marker counts one, and every two columns of indentation count one; and a
// line carries at most MAX_LIST_MARKERS_PER_LINE list markers.

/** Containers a line may open: beyond what agents write, small enough for marked's recursion
 * (src/client/bench/markdown.ts: 16 took twice the CPU on the staircases). */
export const MAX_NESTING = 8;

/** List markers one line may carry (`- - x` is a list in a list): marked's cost is per list item,
 * and lines of eight markers each cost ten times a flat list of the same size. */
export const MAX_LIST_MARKERS_PER_LINE = 2;
const TAB_COLUMNS = 4;
/** `- `, `+ `, `* `, `1. `, `1) ` (a marker needs a space, a tab or the end of the line after it). */
const LIST_MARKER = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)/;
/** A thematic break (`- - -`, `***`): not a list however many dashes. */
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/** A fence in the first column is outside every container (a list item needs indentation, a
 * quote its `>`), so its lines are code up to the closing fence, whatever they look like. A fence
 * indented at all may belong to a list item that ends before it does: its lines are checked. */
const TOP_FENCE = /^(`{3,}|~{3,})/;
const CLOSING_FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** The line with the marker that would open container MAX_NESTING + 1 escaped, or unchanged. */
function limitLine(line: string): string {
  if (THEMATIC_BREAK.test(line)) return line;
  let units = 0;
  let columns = 0;
  let listMarkers = 0;
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      columns += c === '\t' ? TAB_COLUMNS : 1;
      i++;
      continue;
    }
    const marker = c === '>' ? '>' : LIST_MARKER.exec(line.slice(i, i + 11))?.[0];
    if (marker === undefined) return line;
    units += 1 + Math.floor(columns / 2);
    columns = 0;
    if (marker !== '>') listMarkers++;
    // The marker's punctuation is escaped (`\>`, `\-`, `1\.`): a backslash before a digit would show.
    const at = i + marker.length - 1;
    if (units > MAX_NESTING || listMarkers > MAX_LIST_MARKERS_PER_LINE)
      return `${line.slice(0, at)}\\${line.slice(at)}`;
    i += marker.length;
    // The one space that belongs to the marker is not indentation.
    if (line[i] === ' ') i++;
  }
  return line;
}

/** The source with no line opening more than MAX_NESTING quotes and lists. */
export function limitNesting(src: string): string {
  const lines = src.split('\n');
  let fence: string | null = null;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (fence !== null) {
      // A closing fence: the same character, at least as long, nothing after it.
      const close = CLOSING_FENCE.exec(line)?.[1];
      if (close && close[0] === fence[0] && close.length >= fence.length) fence = null;
      continue;
    }
    const open = TOP_FENCE.exec(line)?.[1];
    if (open) {
      fence = open;
      continue;
    }
    lines[n] = limitLine(line);
  }
  return lines.join('\n');
}
