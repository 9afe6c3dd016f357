// A deliberately narrow logger (§6.9): an event name plus fields that are ids, codes, counts and
// states. There is no way to log a free-form object, so file bytes, payloads, command output and
// tokens cannot reach a log by accident. Strings are capped so a hostile id cannot flood it.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;
export type Logger = (level: LogLevel, event: string, fields?: LogFields) => void;

const MAX_LOG_STRING_CHARS = 160;

const clean = (fields: LogFields | undefined): Record<string, string | number | boolean | null> => {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (v === undefined) continue;
    out[k] =
      typeof v === 'string' && v.length > MAX_LOG_STRING_CHARS
        ? `${v.slice(0, MAX_LOG_STRING_CHARS)}…`
        : v;
  }
  return out;
};

/** JSON lines on a writable (stderr by default), one per event. */
export const makeJsonLogger =
  (
    write: (line: string) => void = (l) => process.stderr.write(l),
    minLevel: LogLevel = 'info',
  ): Logger =>
  (level, event, fields) => {
    if (LEVEL_RANK[level] < LEVEL_RANK[minLevel]) return;
    write(`${JSON.stringify({ t: new Date().toISOString(), level, event, ...clean(fields) })}\n`);
  };

const LEVEL_RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export const silentLogger: Logger = () => {};
