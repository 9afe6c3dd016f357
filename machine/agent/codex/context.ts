import type { ApprovalAnswer, Refusal } from '../runner.ts';

// What a Codex turn tells the machine, shaped like the agents' context (the scripted agent's
// AgentContext in runner.ts, plus what only a real agent reports, E10) so the same handlers serve
// every agent: approve / ask / toolStarted / toolFinished / assistant, the turn's abort signal
// (E4 Stop), token usage, the model, and the thread id to store for a resume. Only `approve`
// carries a Codex-specific shape (CodexAsk): the machine maps it onto its own approval kinds.

/** One question of a card; `header` is the short label Codex gives it. */
export type CodexQuestion = {
  prompt: string;
  header?: string;
  options: string[];
  multiSelect: boolean;
  allowFreeText: boolean;
};
/** What the human chose for one question: option labels and/or free text. */
export type QuestionChoice = { labels: string[]; freeText?: string };
/** One choice per question asked, in order; or why there is no answer. */
export type CodexAnswers = { ok: true; choices: QuestionChoice[] } | { ok: false; why: Refusal };

/** Codex's own tool names (E10: `tool` on the card is the agent's name for it). */
export const CODEX_TOOLS = {
  exec: 'exec_command',
  patch: 'apply_patch',
  input: 'request_user_input',
} as const;
export type CodexTool = (typeof CODEX_TOOLS)[keyof typeof CODEX_TOOLS];

export type CodexAsk =
  | {
      tool: 'exec_command';
      title: string;
      /** The command as the human would type it, then its folder and Codex's reason. */
      detail: string;
      command: string;
      cwd: string;
      reason?: string;
    }
  | {
      tool: 'apply_patch';
      title: string;
      /** A unified diff of every file the change touches. */
      detail: string;
      paths: string[];
      reason?: string;
    };

/**
 * The human's answer; E11: a deny may carry what the owner tells the agent. Codex's `decline`
 * has no room for text, so it reaches the model at the start of the next turn.
 */
export type CodexApproval = ApprovalAnswer | { allowed: false; why: Refusal; message?: string };

export type CodexUsage = { inputTokens: number; outputTokens: number };

export type CodexContext = {
  /** Aborted to stop the turn (E4): `turn/interrupt`, then a kill after a backstop. */
  readonly signal: AbortSignal;
  /**
   * Only an explicit allow runs the tool; `cleared` aborts when Codex itself withdrew the
   * request (`serverRequest/resolved` before an answer: the turn ended or was interrupted), and
   * the card it opened should close. There is no allow-with-changes (E3) for Codex.
   */
  approve(ask: CodexAsk, cleared: AbortSignal): Promise<CodexApproval>;
  /** Codex's questions of one request make one card, an item each. */
  ask(questions: CodexQuestion[], cleared: AbortSignal): Promise<CodexAnswers>;
  toolStarted(tool: CodexTool): void;
  toolFinished(refused?: Refusal): void;
  assistant(text: string): void;
  /** The thread's token counts so far (`thread/tokenUsage/updated`). */
  usage?(usage: CodexUsage): void;
  /** Once per process: the model the thread runs, and its id (the native session id). */
  model?(name: string): void;
  nativeSession?(threadId: string): void;
};
