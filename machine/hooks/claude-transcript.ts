import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { callLine, resultText } from '../agent/claude/tools.ts';

// E10 (desk sessions): the transcript of a session started at the desk comes from Claude Code's
// own session file (`transcript_path` in every hook's input, JSONL). It is read incrementally
// from where the last read stopped, a bounded number of bytes per read; a line longer than
// MAX_LINE_BYTES (Claude keeps whole API request bodies in some lines) is skipped unparsed.
// Only what a person would read is kept: prompts, Claude's text, one line per tool call, each
// tool's result clipped as for a dispatched session.

/** At most this much of the file is read per hook event; the rest comes with the next one. */
export const READ_MAX_BYTES = 1024 * 1024;
export const MAX_LINE_BYTES = 256 * 1024;
const CHUNK_BYTES = 64 * 1024;

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
        if (b.id !== undefined) toolNames.set(b.id, b.name);
        return [{ role: 'assistant', text: callLine(b.name, b.input ?? {}) }];
      }
      return [];
    });
  }
  return [];
}

export type TranscriptReader = {
  /** The new lines since the last read (bounded); a missing or unreadable file gives none. */
  read(): TranscriptLine[];
};

/** `from: 'end'` starts at the file's current end (a session already read before a restart). */
export function makeTranscriptReader(file: string, from: 'start' | 'end'): TranscriptReader {
  let offset = -1;
  let partial = Buffer.alloc(0);
  let skipping = false;
  const toolNames = new Map<string, string>();

  const take = (line: Buffer, out: TranscriptLine[]) => {
    if (line.length === 0) return;
    try {
      out.push(...linesOf(JSON.parse(line.toString('utf8')) as Entry, toolNames));
    } catch {
      // a line Claude is still writing, or not JSON: nothing for the reader
    }
  };

  return {
    read() {
      let fd: number;
      try {
        fd = openSync(file, 'r');
      } catch {
        return [];
      }
      const out: TranscriptLine[] = [];
      try {
        const size = fstatSync(fd).size;
        if (offset < 0) offset = from === 'end' ? size : 0;
        // A file that shrank was replaced: start it again.
        if (size < offset) {
          offset = 0;
          partial = Buffer.alloc(0);
        }
        let budget = READ_MAX_BYTES;
        const buf = Buffer.alloc(CHUNK_BYTES);
        while (budget > 0 && offset < size) {
          const n = readSync(fd, buf, 0, Math.min(CHUNK_BYTES, budget), offset);
          if (n <= 0) break;
          offset += n;
          budget -= n;
          let chunk = buf.subarray(0, n);
          for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10)) {
            if (!skipping) take(Buffer.concat([partial, chunk.subarray(0, nl)]), out);
            partial = Buffer.alloc(0);
            skipping = false;
            chunk = chunk.subarray(nl + 1);
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
  };
}
