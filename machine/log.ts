// What the machine tells its operator. Lines carry ids and codes, never secrets, payloads,
// prompts or command output (the pairing code is shown once by main.ts, on purpose, not here).
export const LOG_LEVELS = { info: 'info', warn: 'warn', error: 'error' } as const;
export type LogLevel = (typeof LOG_LEVELS)[keyof typeof LOG_LEVELS];
export type Log = (level: LogLevel, code: string, message: string) => void;

export const consoleLog: Log = (level, code, message) => {
  const line = `${new Date().toISOString()} ${level.padEnd(5)} ${code}: ${message}\n`;
  process.stderr.write(line);
};

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
