// Captures pino output in memory so tests can assert what the relay logged (and what it never
// logged).
export type LogCapture = {
  write(line: string): void;
  text(): string;
  lines(): Record<string, unknown>[];
};

export function makeLogCapture(): LogCapture {
  const chunks: string[] = [];
  return {
    write: (line) => void chunks.push(line),
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
