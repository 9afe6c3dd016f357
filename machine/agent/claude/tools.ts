import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { ApprovalAsk } from '../../approvals/approval-offer.ts';
import type { AgentQuestion, QuestionChoice } from '../agent.ts';

// E10: what Claude Code's permission request (`canUseTool`) becomes on the phone. `tool` is
// Claude's own tool name. A command shows the command line and Claude's description of it; a
// change to a file shows a unified diff (jsdiff) against the file as it is now; a read shows the
// path or pattern. Any other tool shows its input.

const INPUT_CHARS = 2000;
const FILE_TOOLS = new Set(['Edit', 'MultiEdit', 'Write']);

type Input = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function current(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function replaced(text: string, edit: Input): string {
  const from = str(edit.old_string);
  const to = str(edit.new_string);
  if (from === '') return text;
  return edit.replace_all === true ? text.split(from).join(to) : text.replace(from, () => to);
}

/** The file's content after the change the tool asks for (Write, Edit, MultiEdit). */
function after(tool: string, input: Input, before: string): string {
  if (tool === 'Write') return str(input.content);
  if (tool === 'Edit') return replaced(before, input);
  const edits = Array.isArray(input.edits) ? (input.edits as Input[]) : [];
  return edits.reduce(replaced, before);
}

export function unifiedDiff(
  file: string,
  cwd: string,
  before: string | null,
  next: string,
): string {
  const rel = path.relative(cwd, file) || path.basename(file);
  const patch = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${rel}`,
    `b/${rel}`,
    before ?? '',
    next,
    undefined,
    undefined,
    { context: 3 },
  );
  // jsdiff starts with a row of '='; the phone renders the ---/+++ header as the diff's start.
  return patch.replace(/^=+\n/, '');
}

export function approvalAsk(tool: string, input: Input, cwd: string): ApprovalAsk {
  if (tool === 'Bash') {
    const command = str(input.command);
    const description = str(input.description);
    return {
      tool: 'run',
      agentTool: tool,
      title: description !== '' ? `Run: ${description}` : 'Run a command',
      detail: `${command}\n\n${description !== '' ? `${description}\n` : ''}in ${cwd}`,
      command,
    };
  }
  if (FILE_TOOLS.has(tool)) {
    const file = path.resolve(cwd, str(input.file_path));
    const before = current(file);
    const verb = tool === 'Write' ? (before === null ? 'Create' : 'Write') : 'Edit';
    return {
      tool: 'write',
      agentTool: tool,
      title: `${verb} ${path.relative(cwd, file) || file}`,
      detail: unifiedDiff(file, cwd, before, after(tool, input, before ?? '')),
      path: file,
    };
  }
  const where = str(input.file_path) || str(input.path) || str(input.notebook_path);
  const pattern = str(input.pattern);
  if (where !== '' || pattern !== '') {
    return {
      tool: 'other',
      agentTool: tool,
      title: `${tool} ${pattern || where}`,
      detail: [pattern && `pattern: ${pattern}`, where && `path: ${where}`]
        .filter(Boolean)
        .join('\n'),
    };
  }
  const json = JSON.stringify(input, null, 2);
  return {
    tool: 'other',
    agentTool: tool,
    title: tool,
    detail: json.length > INPUT_CHARS ? `${json.slice(0, INPUT_CHARS)}…` : json,
  };
}

type ClaudeQuestion = {
  question?: unknown;
  header?: unknown;
  options?: Array<{ label?: unknown }>;
  multiSelect?: unknown;
};

/** AskUserQuestion's input as questions for the phone (each also takes free text, as "Other"). */
export function questionsOf(input: Input): AgentQuestion[] {
  const list = Array.isArray(input.questions) ? (input.questions as ClaudeQuestion[]) : [];
  return list.map((q) => ({
    prompt: str(q.question),
    ...(str(q.header) !== '' ? { header: str(q.header) } : {}),
    options: (q.options ?? []).map((o) => str(o.label)).filter((l) => l !== ''),
    multiSelect: q.multiSelect === true,
    allowFreeText: true,
  }));
}

/** The `answers` Claude reads: question text → the chosen label(s), or what the human typed. */
export function answersOf(
  questions: AgentQuestion[],
  choices: QuestionChoice[],
): Record<string, string> {
  const answers: Record<string, string> = {};
  questions.forEach((q, i) => {
    const c = choices[i] ?? { labels: [] };
    answers[q.prompt] = [...c.labels, ...(c.freeText !== undefined ? [c.freeText] : [])].join(', ');
  });
  return answers;
}

const TOOL_RESULT_CHARS = 400;

/** A tool result's text, clipped for the transcript. */
export function resultText(content: unknown): string {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : ''))
            .join('\n')
        : '';
  return text.length > TOOL_RESULT_CHARS ? `${text.slice(0, TOOL_RESULT_CHARS)}…` : text;
}

/** One line for the transcript saying which tool the agent called, and on what. */
export function callLine(tool: string, input: Input): string {
  const what =
    str(input.command) ||
    str(input.file_path) ||
    str(input.pattern) ||
    str(input.path) ||
    str(input.url) ||
    '';
  return what === ''
    ? `${tool}`
    : `${tool}: ${what.length > 200 ? `${what.slice(0, 200)}…` : what}`;
}
