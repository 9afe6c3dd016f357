import {
  clearScreenDown,
  createInterface,
  cursorTo,
  moveCursor,
  type Interface,
} from 'node:readline';
import { terminalSafe } from './terminal-text.ts';

// The machine's terminal: the desk's input line and everything printed while it runs (desk
// events, log lines). On an interactive terminal a line printed while the user is typing never
// breaks into it (U5): the half-typed line is lifted, the text printed above it, and the prompt
// and the typed text drawn again where they were. Everything printed here may hold text from
// outside (relay, phones, devices), so every line is made terminal-safe first (H5).

export const DESK_PROMPT = 'desk> ';
/** Outside text on one terminal line is cut here: a hostile relay cannot fill the screen. */
export const MAX_PRINTED_LINE_CHARS = 1000;

export type Terminal = {
  /** Prints text (lines split at `\n`) to stdout, or to stderr with `toErrors`. */
  print(text: string, toErrors?: boolean): void;
  /** From now on typed lines go to `onLine` (and the prompt is shown when interactive). */
  start(onLine: (line: string) => void): void;
  close(): void;
};

export type TerminalOptions = {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  errors?: NodeJS.WritableStream;
  /** A person at a terminal (stdin and stdout are TTYs): prompt, redraw. Otherwise plain lines. */
  interactive: boolean;
  prompt?: string;
  /** Ctrl-C at the prompt: readline takes the key from the terminal, so it is passed on here. */
  onInterrupt?: () => void;
};

export const safeLines = (text: string): string[] =>
  text.split('\n').map((l) => {
    const safe = terminalSafe(l);
    return safe.length > MAX_PRINTED_LINE_CHARS
      ? safe.slice(0, MAX_PRINTED_LINE_CHARS) + '…'
      : safe;
  });

export function makeTerminal(o: TerminalOptions): Terminal {
  const errors = o.errors ?? o.output;
  let rl: Interface | null = null;

  return {
    print(text, toErrors = false) {
      const to = toErrors ? errors : o.output;
      const body = safeLines(text).join('\n') + '\n';
      if (rl === null || !o.interactive) {
        to.write(body);
        return;
      }
      // Lift the typed line (it may wrap over several rows), print, then draw it again: readline
      // redraws from `rows` below the new start, so leave that many rows for it to reclaim.
      const rows = rl.getCursorPos().rows;
      moveCursor(o.output, 0, -rows);
      cursorTo(o.output, 0);
      clearScreenDown(o.output);
      to.write(body);
      o.output.write('\n'.repeat(rows));
      rl.prompt(true);
    },
    start(onLine) {
      rl = createInterface({
        input: o.input,
        output: o.interactive ? o.output : undefined,
        terminal: o.interactive,
        prompt: o.prompt ?? DESK_PROMPT,
      });
      rl.on('line', (line) => {
        onLine(line);
        if (o.interactive) rl?.prompt();
      });
      rl.on('SIGINT', () => o.onInterrupt?.());
      if (o.interactive) rl.prompt();
    },
    close() {
      rl?.close();
      rl = null;
    },
  };
}
