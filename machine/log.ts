import { terminalSafe } from './desk/terminal-text.ts';

// What the machine tells its operator. Lines carry ids and codes, never secrets, payloads,
// prompts or command output (the pairing code is shown once by main.ts, on purpose, not here).
export const LOG_LEVELS = { info: 'info', warn: 'warn', error: 'error' } as const;
export type LogLevel = (typeof LOG_LEVELS)[keyof typeof LOG_LEVELS];
export type Log = (level: LogLevel, code: string, message: string) => void;

const formatLine = (level: LogLevel, code: string, message: string) =>
  `${new Date().toISOString()} ${level.padEnd(5)} ${code}: ${message}`;

/** The log stream for programs (a pipe, a file): every line, to stderr, made terminal-safe. */
export const consoleLog: Log = (level, code, message) => {
  process.stderr.write(terminalSafe(formatLine(level, code, message)) + '\n');
};

/**
 * E9.9: a new phone on this machine, approved (the first) or asking to join: the owner must see
 * its name and key fingerprint — and, for one that waits, the command that lets it in — also at
 * a quiet desk. Not a coming or going: a phone the owner may not know of.
 */
export const DESK_NEWS_CODES = ['phone-registered', 'phone-pending'] as const;
const isDeskNews = (code: string) => (DESK_NEWS_CODES as readonly string[]).includes(code);

/** A formatted log line that is desk news (scripts/start.ts filters the machine's output). */
export const DESK_NEWS_LINE = new RegExp(`^\\S+ (info|warn) +(${DESK_NEWS_CODES.join('|')}): `);

/**
 * U5: what a person at the desk sees. Quiet unless `verbose`: errors, and warnings other than
 * the relay's and the phones' comings and goings (the desk's `status` answers those); no info.
 */
export function deskLog(print: (line: string) => void, o: { verbose: boolean }): Log {
  return (level, code, message) => {
    if (!o.verbose && !isDeskNews(code)) {
      if (level === 'info') return;
      if (level === 'warn' && /^(relay|phone|device)-/.test(code)) return;
    }
    print(formatLine(level, code, message));
  };
}

export type CapturedLog = Log & {
  lines: Array<{ level: LogLevel; code: string; message: string }>;
};
export function captureLog(): CapturedLog {
  const lines: CapturedLog['lines'] = [];
  const log = ((level, code, message) => {
    lines.push({ level, code, message });
  }) as CapturedLog;
  log.lines = lines;
  return log;
}
