// `npm run bench:markdown [-- --runs 9]` (docs/app.md F1): parsing 64 KiB of hostile nesting —
// quotes, lists, mixed, indentation staircases — into the tree the Markdown component renders,
// against a baseline measured in the same run: 64 KiB of plain paragraphs and 64 KiB of a flat
// list. Prints the median of each case in ms and as a ratio to the paragraphs; a case that throws
// (the stack overflow F1 removes) is reported as such. Every loop is bounded by --runs (≤ 50).
import { Lexer } from 'marked';
import { parseMarkdown } from '../markdown.ts';

// Run by tsx in Node, typed with the app's (DOM) types: the two Node facilities it uses.
type CpuUsage = { user: number; system: number };
const node = (
  globalThis as unknown as {
    process: { argv: string[]; cpuUsage(previous?: CpuUsage): CpuUsage };
  }
).process;

const SIZE_BYTES = 64 * 1024;
const MAX_RUNS = 50;
const runsArg = node.argv.indexOf('--runs');
const runs = Math.min(MAX_RUNS, Math.max(1, Number(node.argv[runsArg + 1] ?? 9) || 9));

/** `unit` repeated on one line up to 64 KiB, then some text. */
const oneLine = (unit: string) => unit.repeat(Math.floor((SIZE_BYTES - 5) / unit.length)) + ' deep';
/** `line` repeated on lines up to 64 KiB. */
const lines = (line: string) =>
  Array.from({ length: Math.floor(SIZE_BYTES / (line.length + 1)) }, () => line).join('\n');
/** Each line indented `step` columns more than the one before, up to 64 KiB. */
function staircase(step: number, marker: string, period = Infinity): string {
  let s = '';
  for (let i = 0; s.length < SIZE_BYTES; i++)
    s += `${' '.repeat((i % period) * step)}${marker}item ${i}\n`;
  return s.slice(0, SIZE_BYTES);
}

const BASELINES: Record<string, string> = {
  'baseline: plain paragraphs': lines('a plain sentence of about forty characters.\n'),
  'baseline: a flat list': lines('- a list item of about thirty chars'),
  'baseline: one paragraph of 2-letter lines': lines('ab'),
};
const HOSTILE: Record<string, string> = {
  'quotes >>>… on one line': oneLine('>'),
  'quotes "> > …" on one line': oneLine('> '),
  'lists "- - …" on one line': oneLine('- '),
  'ordered lists "1. 1. …" on one line': oneLine('1. '),
  'mixed "> - …" on one line': oneLine('> - '),
  'mixed "- > 1) …" on one line': oneLine('- > 1) '),
  'indented staircase, 2 columns a level': staircase(2, '- '),
  'indented staircase, 4 columns a level': staircase(4, '1. '),
  'indented staircase of quoted items': staircase(2, '> - '),
  'staircases 16 deep, again and again': staircase(2, '- ', 16),
  'lines of 16 quotes': lines(`${'> '.repeat(16)}x`),
  'lines of 16 nested list markers': lines(`${'- '.repeat(16)}x`),
  'emphasis ***…a***… (nested)': `${'*'.repeat(SIZE_BYTES / 2 - 1)}a${'*'.repeat(SIZE_BYTES / 2 - 1)}`,
  'emphasis "*a *a … a* a*"': `${'*a '.repeat(SIZE_BYTES / 6)}${'a* '.repeat(SIZE_BYTES / 6)}`,
  'emphasis over lines, one paragraph': `${'*a\n'.repeat(SIZE_BYTES / 6)}${'a*\n'.repeat(SIZE_BYTES / 6)}`,
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** Median wall time and median CPU time of the process (the parse is synchronous: on a shared,
 * loaded machine the CPU time is what the parse costs, the wall time what it waited too). */
function time(src: string): { ms: number; cpuMs: number } | { threw: string } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    const startCpu = node.cpuUsage();
    try {
      parseMarkdown(src);
    } catch (e) {
      return { threw: String(e).slice(0, 60) };
    }
    const used = node.cpuUsage(startCpu);
    wall.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  return { ms: median(wall), cpuMs: median(cpu) };
}

/** What marked alone does with the same text (no nesting limit): the finding, reproduced. */
function unlimited(src: string): string {
  const start = performance.now();
  try {
    Lexer.lex(src, { gfm: true, breaks: true });
    return `${(performance.now() - start).toFixed(0)} ms`;
  } catch (e) {
    return (e as Error).name;
  }
}

// Warm up: marked's and our code's first runs are compiled on the way.
for (const src of Object.values(BASELINES)) for (let r = 0; r < runs; r++) parseMarkdown(src);
const base = time(BASELINES['baseline: plain paragraphs']!);
if (!('ms' in base)) throw new Error(`the baseline threw: ${base.threw}`);
console.log(
  `bench:markdown ${new Date().toISOString()} — ${runs} runs, median wall and CPU time, ratio of CPU time to the plain paragraphs; 64 KiB each`,
);
const show = (name: string, r: ReturnType<typeof time>, unlimitedResult?: string) => {
  const cells =
    'ms' in r
      ? `${r.ms.toFixed(1)} ms (cpu ${r.cpuMs.toFixed(1)} ms) ×${(r.cpuMs / base.cpuMs).toFixed(2)}`
      : `THREW ${r.threw}`;
  const tail = unlimitedResult === undefined ? '' : `  unlimited marked: ${unlimitedResult}`;
  console.log(`${name.padEnd(42)} ${cells.padEnd(36)}${tail}`);
};
show('baseline: plain paragraphs', base);
for (const name of ['baseline: a flat list', 'baseline: one paragraph of 2-letter lines'])
  show(name, time(BASELINES[name]!));
for (const [name, src] of Object.entries(HOSTILE)) show(name, time(src), unlimited(src));
