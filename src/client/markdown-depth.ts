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
// line carries at most MAX_LIST_MARKERS_PER_LINE list markers. Emphasis nests too: a paragraph
// carries at most MAX_EMPHASIS_DELIMITERS of `*` and `_`.

/** Containers a line may open: beyond what agents write, small enough for marked's recursion
 * (src/client/bench/markdown.ts: 16 took twice the CPU on the staircases). */
export const MAX_NESTING = 8;

/** List markers one line may carry (`- - x` is a list in a list): marked's cost is per list item,
 * and lines of eight markers each cost ten times a flat list of the same size. */
export const MAX_LIST_MARKERS_PER_LINE = 2;
/**
 * Emphasis delimiters (`*`, `_`) one paragraph may carry. marked nests emphasis by recursion too:
 * 32 KiB of `*` around a word overflowed the stack, and `*a *a … a* a*` took seconds before it
 * did, and each opener left unclosed rescans the rest of the paragraph. 16 bold words a paragraph;
 * past them the delimiters read the same, as plain text.
 */
export const MAX_EMPHASIS_DELIMITERS = 32;
const TAB_COLUMNS = 4;
/** Private-use characters: no text means anything by them (one in the agent's text reads as its
 * delimiter). */
const STAR = '\uE000';
const UNDERSCORE = '\uE001';
const STAND_IN = /[\uE000\uE001]/g;

/** Text out of marked with the stand-ins of limitEmphasis turned back into `*` and `_`. */
export const restoreDelimiters = (text: string) =>
  text.replace(STAND_IN, (c) => (c === STAR ? '*' : '_'));
/** `- `, `+ `, `* `, `1. `, `1) ` (a marker needs a space, a tab or the end of the line after it). */
const LIST_MARKER = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)/;
/** A thematic break (`- - -`, `***`): not a list however many dashes. */
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/** A fence in the first column is outside every container (a list item needs indentation, a
 * quote its `>`), so its lines are code up to the closing fence, whatever they look like. A fence
 * indented at all may belong to a list item that ends before it does: its lines are checked. */
const TOP_FENCE = /^(`{3,}|~{3,})/;
const CLOSING_FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/**
 * The line with the marker that would open container MAX_NESTING + 1 escaped, or unchanged; and
 * where its inline text starts (after the container markers).
 */
function limitLine(line: string): { line: string; text: number } {
  if (THEMATIC_BREAK.test(line)) return { line, text: line.length };
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
    if (marker === undefined) return { line, text: i };
    units += 1 + Math.floor(columns / 2);
    columns = 0;
    if (marker !== '>') listMarkers++;
    // The marker's punctuation is escaped (`\>`, `\-`, `1\.`): a backslash before a digit would show.
    const at = i + marker.length - 1;
    if (units > MAX_NESTING || listMarkers > MAX_LIST_MARKERS_PER_LINE)
      return { line: `${line.slice(0, at)}\\${line.slice(at)}`, text: at };
    i += marker.length;
    // The one space that belongs to the marker is not indentation.
    if (line[i] === ' ') i++;
  }
  return { line, text: i };
}

/**
 * The line's emphasis delimiters (`*`, `_`) from `from` on, past what is `left` of the
 * paragraph's MAX_EMPHASIS_DELIMITERS, replaced by stand-ins that marked treats as plain text
 * and restoreDelimiters turns back. (Not `\\*`: marked makes a token of every escape; not `&#42;`:
 * its GFM e-mail lookahead rescans a run of those at every position — both took hundreds of ms.)
 * Backslash escapes and code spans (a backtick run up to the same run on the line) are skipped.
 */
function limitEmphasis(line: string, from: number, budget: { left: number }): string {
  let out = '';
  let last = 0;
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') {
      i++;
    } else if (c === '`') {
      let j = i;
      while (line[j] === '`') j++;
      const end = line.indexOf(line.slice(i, j), j);
      i = end === -1 ? j - 1 : end + (j - i) - 1;
    } else if (c === '*' || c === '_') {
      if (budget.left > 0) budget.left--;
      else {
        out += `${line.slice(last, i)}${c === '*' ? STAR : UNDERSCORE}`;
        last = i + 1;
      }
    }
  }
  return last === 0 && out === '' ? line : out + line.slice(last);
}

/** The source with no line opening more than MAX_NESTING quotes and lists, and no paragraph
 * carrying more than MAX_EMPHASIS_DELIMITERS emphasis delimiters. */
export function limitNesting(src: string): string {
  const lines = src.split('\n');
  let fence: string | null = null;
  let budget = { left: MAX_EMPHASIS_DELIMITERS };
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    // A blank line ends the paragraph (and its emphasis).
    if (/^[ \t]*$/.test(line)) budget = { left: MAX_EMPHASIS_DELIMITERS };
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
    const limited = limitLine(line);
    lines[n] = limitEmphasis(limited.line, limited.text, budget);
  }
  return lines.join('\n');
}
