import { asTyped } from './command-line.ts';
import { changeTitle, unifiedDiff } from './file-diff.ts';
import { shaped } from './parse.ts';
import type { CodexAnswers, CodexAsk, CodexQuestion } from './context.ts';
import type { CommandExecutionRequestApprovalParams } from './generated/v2/CommandExecutionRequestApprovalParams.ts';
import type { FileChangeRequestApprovalParams } from './generated/v2/FileChangeRequestApprovalParams.ts';
import type { FileUpdateChange } from './generated/v2/FileUpdateChange.ts';
import type { ToolRequestUserInputParams } from './generated/v2/ToolRequestUserInputParams.ts';
import type { ToolRequestUserInputQuestion } from './generated/v2/ToolRequestUserInputQuestion.ts';
import type { ToolRequestUserInputResponse } from './generated/v2/ToolRequestUserInputResponse.ts';

// The server's requests to a human, turned into cards (approve / ask) and the answers back.
// Params are checked here (parse at the edge); a request that does not check out is refused.

export const SERVER_REQUESTS = {
  commandApproval: 'item/commandExecution/requestApproval',
  fileChangeApproval: 'item/fileChange/requestApproval',
  userInput: 'item/tool/requestUserInput',
} as const;

const TITLES = {
  command: 'Run a command',
  humanCommand: 'Run a command',
  writeStdin: 'Send input to a running command',
} as const;

export function parseCommandApproval(x: unknown): CommandExecutionRequestApprovalParams | null {
  return shaped<CommandExecutionRequestApprovalParams>(x, {
    threadId: 'string',
    turnId: 'string',
    itemId: 'string',
    command: 'string?',
    cwd: 'string?',
    reason: 'string?',
  });
}

export function commandAsk(p: CommandExecutionRequestApprovalParams, cwd: string): CodexAsk {
  const command = asTyped(p.command ?? '(Codex did not say which command)');
  const where = p.cwd ?? cwd;
  const reason = p.reason ?? undefined;
  const title = TITLES[p.kind] ?? TITLES.command;
  const detail = `${command}\n\nin ${where}${reason !== undefined ? `\n\nWhy: ${reason}` : ''}`;
  return reason !== undefined
    ? { tool: 'exec_command', title, detail, command, cwd: where, reason }
    : { tool: 'exec_command', title, detail, command, cwd: where };
}

export function parseFileChangeApproval(x: unknown): FileChangeRequestApprovalParams | null {
  return shaped<FileChangeRequestApprovalParams>(x, {
    threadId: 'string',
    turnId: 'string',
    itemId: 'string',
    reason: 'string?',
  });
}

/** The request carries no diff: the `fileChange` item Codex started just before it does. */
export function fileChangeAsk(
  p: FileChangeRequestApprovalParams,
  changes: readonly FileUpdateChange[] | undefined,
  cwd: string,
): CodexAsk {
  const reason = p.reason ?? undefined;
  const known = changes !== undefined && changes.length > 0;
  const detail =
    (known ? unifiedDiff(changes, cwd) : '(Codex did not show the change)\n') +
    (reason !== undefined ? `\nWhy: ${reason}` : '');
  const base = {
    tool: 'apply_patch' as const,
    title: known ? changeTitle(changes, cwd) : 'Change files',
    detail,
    paths: known ? changes.map((c) => c.path) : [],
  };
  return reason !== undefined ? { ...base, reason } : base;
}

const isQuestion = (q: unknown): q is ToolRequestUserInputQuestion =>
  shaped<ToolRequestUserInputQuestion>(q, {
    id: 'string',
    header: 'string',
    question: 'string',
    isOther: 'boolean',
  }) !== null &&
  ((q as ToolRequestUserInputQuestion).options === null ||
    (Array.isArray((q as ToolRequestUserInputQuestion).options) &&
      (q as ToolRequestUserInputQuestion).options!.every(
        (o) => shaped(o, { label: 'string' }) !== null,
      )));

export function parseUserInput(x: unknown): ToolRequestUserInputParams | null {
  const p = shaped<ToolRequestUserInputParams>(x, {
    threadId: 'string',
    turnId: 'string',
    itemId: 'string',
    questions: 'array',
  });
  return p !== null && p.questions.length > 0 && p.questions.every(isQuestion) ? p : null;
}

export function questionOf(q: ToolRequestUserInputQuestion): CodexQuestion {
  const options = (q.options ?? []).map((o) => o.label);
  return {
    prompt: q.question,
    ...(q.header !== '' ? { header: q.header } : {}),
    options,
    multiSelect: false,
    // A question without options can only be answered in words.
    allowFreeText: q.isOther || options.length === 0,
  };
}

/** Codex's answer shape: per question id, the chosen labels and any words typed. */
export function userInputResponse(
  questions: readonly ToolRequestUserInputQuestion[],
  answers: CodexAnswers,
): ToolRequestUserInputResponse {
  const out: ToolRequestUserInputResponse = { answers: {} };
  if (!answers.ok) return out;
  questions.forEach((q, i) => {
    const a = answers.choices[i];
    if (a === undefined) return;
    out.answers[q.id] = {
      answers: [...a.labels, ...(a.freeText !== undefined ? [a.freeText] : [])],
    };
  });
  return out;
}
