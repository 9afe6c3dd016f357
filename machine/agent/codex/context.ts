import type { AgentAnswer, AgentQuestion, ApprovalAnswer, Refusal } from '../runner.ts';

// What a Codex turn tells the machine, shaped like the scripted agent's AgentContext (runner.ts)
// so the same handlers serve both: approve / ask / toolStarted / toolFinished / assistant and the
// turn's abort signal (E4 Stop), plus what only a real agent reports (E10): token usage, the
// model, and the thread id to store for a resume.

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
  ask(question: AgentQuestion, cleared: AbortSignal): Promise<AgentAnswer>;
  toolStarted(tool: CodexTool): void;
  toolFinished(refused?: Refusal): void;
  assistant(text: string): void;
  /** The thread's token counts so far (`thread/tokenUsage/updated`). */
  usage?(usage: CodexUsage): void;
  /** Once per process: the thread now open, and the model it runs. */
  thread?(info: { threadId: string; model: string }): void;
};
