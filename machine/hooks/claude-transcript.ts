import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { callLine, resultText } from '../agent/claude/tools.ts';

// E10 (desk sessions): the transcript of a session started at the desk comes from Claude Code's
// own session file (`transcript_path` in every hook's input, JSONL). It is read incrementally
// from where the last read stopped, a bounded number of bytes per read; a line longer than
// MAX_LINE_BYTES (Claude keeps whole API request bodies in some lines) is skipped unparsed.
// Only what a person would read is kept: prompts, Claude's text, one line per tool call, each
// tool's result clipped as for a dispatched session. Where reading stopped (the end of the last
// whole line, and the names of the tool calls whose results are still to come) is a position the
// machine keeps with the session, so after a restart reading resumes there: what Claude wrote
// while no machine ran is read then, and nothing is read twice.

/** At most this much of the file is read per hook event; the rest comes with the next one. */
export const READ_MAX_BYTES = 1024 * 1024;
export const MAX_LINE_BYTES = 256 * 1024;
const CHUNK_BYTES = 64 * 1024;
/** Tool calls whose result has not been read yet, by id; the oldest name is dropped beyond this. */
export const MAX_PENDING_TOOLS = 64;

export type TranscriptLine = { role: 'user' | 'assistant'; text: string };

type Block = {
  type?: string;
  text?: string;
  name?: string;
  input?: Record<string, unknown>;
  id?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
};
type Entry = {
  type?: string;
  isMeta?: boolean;
  isSidechain?: boolean;
  message?: { content?: string | Block[] };
};

/** What one JSONL entry of Claude's session file says to a reader, if anything. */
export function linesOf(entry: Entry, toolNames: Map<string, string>): TranscriptLine[] {
  if (entry.isMeta === true || entry.isSidechain === true) return [];
  const content = entry.message?.content;
  if (entry.type === 'user') {
    if (typeof content === 'string') {
      // Slash commands and their output are kept by Claude as tagged text; they are not prompts.
      const t = content.trim();
      return t === '' || t.startsWith('<') ? [] : [{ role: 'user', text: t }];
    }
    if (!Array.isArray(content)) return [];
    return content.flatMap((b): TranscriptLine[] => {
      if (b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<'))
        return [{ role: 'user', text: b.text }];
      if (b.type !== 'tool_result') return [];
      const name = toolNames.get(b.tool_use_id ?? '') ?? 'tool';
      toolNames.delete(b.tool_use_id ?? '');
      const text = resultText(b.content);
      return [
        {
          role: 'assistant',
          text: `${name} ${b.is_error === true ? 'failed' : 'result'}${text ? `:\n${text}` : ''}`,
        },
      ];
    });
  }
  if (entry.type === 'assistant' && Array.isArray(content)) {
    return content.flatMap((b): TranscriptLine[] => {
      if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '')
        return [{ role: 'assistant', text: b.text }];
      if (b.type === 'tool_use' && typeof b.name === 'string') {
        if (b.id !== undefined) {
          toolNames.set(b.id, b.name);
          if (toolNames.size > MAX_PENDING_TOOLS) toolNames.delete(toolNames.keys().next().value!);
        }
        return [{ role: 'assistant', text: callLine(b.name, b.input ?? {}) }];
      }
      return [];
    });
  }
  return [];
}

/**
 * Where a reader stopped: `offset` is the end of the last whole line read (a line Claude was
 * still writing is read again from its start), `tools` the tool calls whose results are to come.
 */
export type ReadPosition = { offset: number; tools: Array<[id: string, name: string]> };

export type TranscriptReader = {
  /** The new lines since the last read (at most `maxBytes`); a missing file gives none. */
  read(maxBytes?: number): TranscriptLine[];
  /** Where the next read starts; null until the file was first opened. */
  position(): ReadPosition | null;
};

/**
 * `from: 'end'` starts at the file's current end; a position resumes where an earlier reader
 * stopped (a file now shorter than that was replaced: it is read from its start).
 */
export function makeTranscriptReader(
  file: string,
  from: 'start' | 'end' | ReadPosition,
): TranscriptReader {
  let offset = typeof from === 'object' ? from.offset : -1;
  /** The end of the last whole line: where a reader started afresh would resume. */
  let consumed = offset;
  let partial = Buffer.alloc(0);
  let skipping = false;
  const toolNames = new Map<string, string>(typeof from === 'object' ? from.tools : []);

  const take = (line: Buffer, out: TranscriptLine[]) => {
    if (line.length === 0) return;
    try {
      out.push(...linesOf(JSON.parse(line.toString('utf8')) as Entry, toolNames));
    } catch {
      // a line Claude is still writing, or not JSON: nothing for the reader
    }
  };

  return {
    read(maxBytes = READ_MAX_BYTES) {
      let fd: number;
      try {
        fd = openSync(file, 'r');
      } catch {
        return [];
      }
      const out: TranscriptLine[] = [];
      try {
        const size = fstatSync(fd).size;
        if (offset < 0) offset = consumed = from === 'end' ? size : 0;
        // A file that shrank was replaced: start it again.
        if (size < offset) {
          offset = consumed = 0;
          partial = Buffer.alloc(0);
          skipping = false;
        }
        let budget = maxBytes;
        const buf = Buffer.alloc(CHUNK_BYTES);
        while (budget > 0 && offset < size) {
          const n = readSync(fd, buf, 0, Math.min(CHUNK_BYTES, budget), offset);
          if (n <= 0) break;
          let at = offset;
          offset += n;
          budget -= n;
          let chunk = buf.subarray(0, n);
          for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10)) {
            if (!skipping) take(Buffer.concat([partial, chunk.subarray(0, nl)]), out);
            partial = Buffer.alloc(0);
            skipping = false;
            chunk = chunk.subarray(nl + 1);
            at += nl + 1;
            consumed = at;
          }
          if (!skipping) {
            partial = Buffer.concat([partial, chunk]);
            if (partial.length > MAX_LINE_BYTES) {
              partial = Buffer.alloc(0);
              skipping = true;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return out;
    },
    position: () => (consumed < 0 ? null : { offset: consumed, tools: [...toolNames] }),
  };
}
