// The scripted agent's language (docs/mock-agent.md). A prompt whose first non-blank line is a
// directive is a script; any other prompt runs the default demo.

export const DIRECTIVES = {
  run: 'run',
  read: 'read',
  list: 'list',
  write: 'write',
  ask: 'ask',
  'ask-multi': 'ask-multi',
  'ask-text': 'ask-text',
  say: 'say',
  sleep: 'sleep',
  fail: 'fail',
  close: 'close',
} as const;
export type Directive = (typeof DIRECTIVES)[keyof typeof DIRECTIVES];

export const MAX_SLEEP_MS = 60_000;

export type ScriptStep =
  | { kind: 'run'; command: string }
  | { kind: 'read'; path: string }
  | { kind: 'list'; path: string }
  | { kind: 'write'; path: string; text: string; fromSummary?: true }
  | { kind: 'ask'; prompt: string; options: string[]; multiSelect: boolean; allowFreeText: boolean }
  | { kind: 'say'; text: string }
  | { kind: 'sleep'; ms: number }
  | { kind: 'fail'; message: string }
  | { kind: 'close' }
  /** The demo's last words, from what actually happened to `wrote` (never a directive). */
  | { kind: 'conclude'; wrote: string };

export type ScriptParse =
  | { ok: true; script: true; steps: ScriptStep[] }
  | { ok: true; script: false }
  | { ok: false; code: 'script-syntax'; line: number; message: string };

const DIRECTIVE_LINE = /^([a-z-]+):(?:\s(.*)|)$/;

function directiveOf(line: string): { name: Directive; arg: string } | null {
  const m = DIRECTIVE_LINE.exec(line.trimEnd());
  if (m === null || !Object.hasOwn(DIRECTIVES, m[1]!)) return null;
  return { name: m[1] as Directive, arg: (m[2] ?? '').trim() };
}

export function parseScript(prompt: string): ScriptParse {
  const lines = prompt.replace(/\r\n?/g, '\n').split('\n');
  const first = lines.find((l) => l.trim() !== '');
  if (first === undefined || directiveOf(first.trim()) === null) return { ok: true, script: false };

  const steps: ScriptStep[] = [];
  const bad = (line: number, message: string): ScriptParse => ({
    ok: false,
    code: 'script-syntax',
    line,
    message: `line ${line}: ${message}`,
  });
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const n = i + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const d = directiveOf(raw.trim());
    if (d === null)
      return bad(n, `not a directive: "${raw.trim().slice(0, 40)}" (see docs/mock-agent.md)`);
    const needArg = (what: string) => bad(n, `${d.name}: needs ${what}`);
    switch (d.name) {
      case 'run':
        if (d.arg === '') return needArg('a command');
        steps.push({ kind: 'run', command: d.arg });
        break;
      case 'read':
        if (d.arg === '') return needArg('a path');
        steps.push({ kind: 'read', path: d.arg });
        break;
      case 'list':
        steps.push({ kind: 'list', path: d.arg === '' ? '.' : d.arg });
        break;
      case 'write': {
        if (d.arg === '') return needArg('a path');
        const body: string[] = [];
        while (i + 1 < lines.length && directiveOf(lines[i + 1]!.trim()) === null) {
          const next = lines[++i]!;
          // A leading backslash lets the text hold a line that looks like a directive.
          body.push(next.startsWith('\\') ? next.slice(1) : next);
        }
        while (body.length > 0 && body[body.length - 1]!.trim() === '') body.pop();
        steps.push({
          kind: 'write',
          path: d.arg,
          text: body.length > 0 ? body.join('\n') + '\n' : '',
        });
        break;
      }
      case 'ask':
      case 'ask-multi':
      case 'ask-text': {
        const [question = '', ...rest] = d.arg.split('|').map((s) => s.trim());
        const options = rest.filter((o) => o !== '');
        if (question === '') return needArg('a question');
        const allowFreeText = d.name === 'ask-text';
        if (!allowFreeText && options.length < 2) return needArg('at least two options: q | a | b');
        steps.push({
          kind: 'ask',
          prompt: question,
          options,
          multiSelect: d.name === 'ask-multi',
          allowFreeText,
        });
        break;
      }
      case 'say':
        if (d.arg === '') return needArg('text');
        steps.push({ kind: 'say', text: d.arg });
        break;
      case 'sleep': {
        const ms = /^\d+$/.test(d.arg) ? Number(d.arg) : NaN;
        if (!(ms >= 0 && ms <= MAX_SLEEP_MS))
          return bad(n, `sleep: needs milliseconds 0..${MAX_SLEEP_MS}`);
        steps.push({ kind: 'sleep', ms });
        break;
      }
      case 'fail':
        steps.push({ kind: 'fail', message: d.arg === '' ? 'the script failed' : d.arg });
        break;
      case 'close':
        steps.push({ kind: 'close' });
        break;
    }
  }
  return { ok: true, script: true, steps };
}

/** The demo a plain prompt runs: list, read, ask, run (approval), write (approval), summary. */
export function demoSteps(firstFile: string | null): ScriptStep[] {
  const steps: ScriptStep[] = [{ kind: 'list', path: '.' }];
  if (firstFile !== null) steps.push({ kind: 'read', path: firstFile });
  steps.push(
    {
      kind: 'ask',
      prompt: 'How detailed should the summary be?',
      options: ['Short', 'Detailed'],
      multiSelect: false,
      allowFreeText: false,
    },
    { kind: 'run', command: 'ls -la' },
    { kind: 'write', path: 'DISPATCH-SUMMARY.md', text: '', fromSummary: true },
    { kind: 'conclude', wrote: 'DISPATCH-SUMMARY.md' },
  );
  return steps;
}
