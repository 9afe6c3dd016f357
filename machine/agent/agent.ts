import type { AccessLevel } from '../../protocol/index.ts';
import type { Timeouts } from '../../protocol/timers.ts';
import type { ApprovalAsk } from '../approvals/approval-offer.ts';
import type { ToolHost } from '../links/tool-host.ts';

// The seam every agent sits behind (E10). Two levels, as in paseo: a provider per agent (is it
// installed, open a session — fresh or resuming the agent's own session id) and a session (run a
// turn with a prompt, close). Stop is the turn's `signal`: when it aborts, the session ends its
// turn and the tools it started. Everything that reaches a human goes through the turn's context,
// so turns.ts never knows which agent runs; each agent lives in machine/agent/<name>/.

/** Why a tool did not run or a question has no answer: the human's deny, or no decision. */
export const REFUSALS = { denied: 'denied', expired: 'expired', cancelled: 'cancelled' } as const;
export type Refusal = (typeof REFUSALS)[keyof typeof REFUSALS];

export type AgentQuestion = {
  prompt: string;
  /** A short label the agent gives the question (Claude's `header`); absent for the mock. */
  header?: string;
  options: string[];
  multiSelect: boolean;
  allowFreeText: boolean;
};
/** What the human chose for one question: option labels and/or free text. */
export type QuestionChoice = { labels: string[]; freeText?: string };
/** One choice per question asked, in order; or why there is no answer. */
export type AgentAnswers = { ok: true; choices: QuestionChoice[] } | { ok: false; why: Refusal };
/** The answer to one question (the scripted agent asks one at a time). */
export type AgentAnswer = ({ ok: true } & QuestionChoice) | { ok: false; why: Refusal };
/**
 * Only an explicit allow (phone, desk, or a rule the human made, E2) runs the tool; never a
 * timeout. `edited` (E3): the command the human changed it to, which runs instead. `message`
 * (E11): what the owner told the agent with a deny, when the phone sent one.
 */
export type ApprovalAnswer =
  { allowed: true; edited?: string } | { allowed: false; why: Refusal; message?: string };

/** E10: the agent's own counts for the session so far. */
export type AgentUsage = { inputTokens: number; outputTokens: number; costUsd?: number };

export type AgentContext = {
  readonly cwd: string;
  readonly signal: AbortSignal;
  host(): ToolHost;
  /**
   * `cleared` (optional) aborts when the agent itself withdrew the request (it stopped waiting):
   * the card closes and the answer is `cancelled`.
   */
  approve(ask: ApprovalAsk, cleared?: AbortSignal): Promise<ApprovalAnswer>;
  /** Several questions make one card (one item each). */
  ask(questions: AgentQuestion[], cleared?: AbortSignal): Promise<AgentAnswers>;
  /** The agent's OWN tool name (`run`, `Bash`, `exec_command`…). */
  toolStarted(tool: string): void;
  /** `refused`: the tool did not run (or the question got no answer), and why. */
  toolFinished(refused?: Refusal): void;
  assistant(text: string): void;
  sleep(ms: number): Promise<void>;
  /** E10: the session's usage so far, the model in use, the agent's own session id. */
  usage(usage: AgentUsage): void;
  model(name: string): void;
  nativeSession(id: string): void;
};

export type TurnOutcome = {
  ok: boolean;
  summary: string;
  /** Set when the summary is a placeholder rather than agent text. */
  placeholder: boolean;
  close: boolean;
};

export type AgentSession = {
  /** Runs one turn; resolves when it ended (finished, failed, or stopped by `ctx.signal`). */
  runTurn(prompt: string, ctx: AgentContext): Promise<TurnOutcome>;
  /** Ends whatever still runs (the agent's process tree); the session takes no more turns. */
  close(): Promise<void>;
};

export type AgentCheck = { ok: true; detail: string } | { ok: false; message: string };

export type OpenOptions = {
  cwd: string;
  access: AccessLevel;
  /** The agent's own session id to continue (after a restart); absent = a new conversation. */
  resume?: string;
  /** T3: the machine's timers, for the adapter's rules about time (real ones when absent). */
  timers?: Timeouts;
};

export type AgentProvider = {
  /** As on the wire (`capabilities.agents`, `dispatch.request.agent`, `Session.agent`). */
  readonly name: string;
  /** Is the agent installed and startable here? Said plainly when not. */
  check(): Promise<AgentCheck>;
  open(options: OpenOptions): AgentSession;
};

export const NO_TEXT_SUMMARY = 'The agent ended the turn without a reply.';

/** A turn's outcome from its text: a placeholder when the agent said nothing. */
export function outcomeOf(ok: boolean, text: string, close = false): TurnOutcome {
  const t = text.trim();
  return t === ''
    ? { ok, summary: NO_TEXT_SUMMARY, placeholder: true, close }
    : { ok, summary: t, placeholder: false, close };
}
