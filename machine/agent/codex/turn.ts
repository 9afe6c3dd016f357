import { asTyped } from './command-line.ts';
import {
  CODEX_TOOLS,
  type CodexAnswers,
  type CodexApproval,
  type CodexContext,
} from './context.ts';
import { shaped } from './parse.ts';
import {
  commandAsk,
  fileChangeAsk,
  parseCommandApproval,
  parseFileChangeApproval,
  parseUserInput,
  questionOf,
  SERVER_REQUESTS,
  userInputResponse,
} from './requests.ts';
import type { Refusal, TurnOutcome } from '../runner.ts';
import { NO_TEXT_SUMMARY } from '../runner.ts';
import type { Timeouts } from '../../../protocol/timers.ts';
import type { AppServer } from './rpc.ts';
import { METHOD_NOT_FOUND } from './rpc.ts';
import type { RequestId } from './generated/RequestId.ts';
import type { CommandExecutionRequestApprovalResponse } from './generated/v2/CommandExecutionRequestApprovalResponse.ts';
import type { FileChangeRequestApprovalResponse } from './generated/v2/FileChangeRequestApprovalResponse.ts';
import type { ErrorNotification } from './generated/v2/ErrorNotification.ts';
import type { FileUpdateChange } from './generated/v2/FileUpdateChange.ts';
import type { ItemCompletedNotification } from './generated/v2/ItemCompletedNotification.ts';
import type { ServerRequestResolvedNotification } from './generated/v2/ServerRequestResolvedNotification.ts';
import type { ThreadItem } from './generated/v2/ThreadItem.ts';
import type { ThreadTokenUsageUpdatedNotification } from './generated/v2/ThreadTokenUsageUpdatedNotification.ts';
import type { TurnCompletedNotification } from './generated/v2/TurnCompletedNotification.ts';
import type { TurnSteerParams } from './generated/v2/TurnSteerParams.ts';

// One turn: routes the app-server's notifications and requests to the context, answers each
// approval with `accept` or `decline` (a deny never `cancel`s: the turn goes on and the model
// hears it was declined), and settles with the turn's end — completed, failed with Codex's own
// message, or interrupted.

const OUTPUT_IN_TRANSCRIPT_CHARS = 2_000;
/** E11: how long Codex gets to take a deny's words into the running turn (T3: on the session's timers). */
export const STEER_LIMIT_MS = 2_000;
const clip = (s: string) =>
  s.length > OUTPUT_IN_TRANSCRIPT_CHARS
    ? s.slice(0, OUTPUT_IN_TRANSCRIPT_CHARS) + '\n…[truncated]'
    : s;

export type TurnEnd =
  | { status: 'completed' | 'failed' | 'interrupted'; error: string | null }
  | { status: 'lost'; error: string };

export type CodexTurn = ReturnType<typeof makeTurn>;

/** E4: a stopped turn's summary, worded as the scripted agent's. */
export const stoppedText = (why: unknown) =>
  typeof why === 'string' ? `Turn stopped: ${why}.` : 'Turn stopped.';

/** E11: what the owner said with a deny, told to the model in the same turn (or the next). */
export const deniedNote = (command: string, message: string) =>
  `(From the owner, who denied \`${command}\` on their phone: ${message})`;

/** Removes one `note` from `notes`, if still there. */
const drop = (notes: string[], note: string): void => {
  const at = notes.indexOf(note);
  if (at >= 0) notes.splice(at, 1);
};

export function makeTurn(
  server: AppServer,
  threadId: string,
  cwd: string,
  ctx: CodexContext,
  notes: string[],
  timers: Timeouts,
) {
  let turnId: string | null = null;
  let lastText: string | null = null;
  let lastError: string | null = null;
  let settle!: (end: TurnEnd) => void;
  const ended = new Promise<TurnEnd>((r) => (settle = r));
  /** Items started and not completed: `tool` to finish, changes to show in an approval. */
  const open = new Map<string, { changes?: FileUpdateChange[] }>();
  const refusals = new Map<string, Refusal>();
  /** Server requests not yet answered, each with the signal that closes its card. */
  const unanswered = new Map<RequestId, AbortController>();

  const toolOf = (item: ThreadItem) =>
    item.type === 'commandExecution'
      ? CODEX_TOOLS.exec
      : item.type === 'fileChange'
        ? CODEX_TOOLS.patch
        : null;

  function itemStarted(item: ThreadItem) {
    const tool = toolOf(item);
    if (tool === null || open.has(item.id)) return;
    open.set(item.id, item.type === 'fileChange' ? { changes: item.changes } : {});
    ctx.toolStarted(tool);
  }

  function itemCompleted(item: ThreadItem) {
    if (item.type === 'agentMessage') {
      if (item.text.trim() !== '') {
        lastText = item.text;
        ctx.assistant(item.text);
      }
      return;
    }
    if (item.type !== 'commandExecution' && item.type !== 'fileChange') return;
    if (!open.delete(item.id)) return;
    const declined = item.status === 'declined';
    ctx.toolFinished(declined ? (refusals.get(item.id) ?? 'denied') : undefined);
    if (item.type === 'commandExecution') {
      const out = (item.aggregatedOutput ?? '').trimEnd();
      const status = declined ? 'declined' : `exit ${item.exitCode ?? '?'}`;
      ctx.assistant(`$ ${asTyped(item.command)}\n${out === '' ? '' : clip(out) + '\n'}(${status})`);
    } else if (item.type === 'fileChange') {
      const files = item.changes.map((c) => c.path).join(', ');
      ctx.assistant(`apply_patch ${files}: ${item.status}`);
    }
  }

  async function decide(
    id: RequestId,
    itemId: string,
    ask: () => ReturnType<typeof commandAsk>,
  ): Promise<void> {
    const cleared = new AbortController();
    unanswered.set(id, cleared);
    let answer: CodexApproval;
    const shown = ask();
    try {
      answer = await ctx.approve(shown, cleared.signal);
    } catch {
      answer = { allowed: false, why: 'cancelled' };
    }
    // E3 is not offered for Codex: an edited command cannot be run in its place, so it is refused.
    const allowed = answer.allowed && answer.edited === undefined;
    if (!allowed) refusals.set(itemId, answer.allowed ? 'denied' : answer.why);
    if (!answer.allowed && 'message' in answer && answer.message !== undefined) {
      const what = shown.tool === 'exec_command' ? shown.command : shown.paths.join(', ');
      const note = deniedNote(what, answer.message);
      // E11: `decline` carries no text, so the words go in as a steer of this very turn, before
      // the decline: Codex adds them to its next model request, after the refusal. A turn that
      // cannot take them (it ended, or Codex did not answer in STEER_LIMIT_MS) keeps them for the
      // next one; a late yes still counts, so they are never told twice.
      if (unanswered.has(id)) await steer(note);
      else notes.push(note);
    }
    if (!unanswered.delete(id)) return; // Codex withdrew it; nothing to answer
    const decision = allowed ? 'accept' : 'decline';
    server.respond(id, {
      decision,
    } satisfies CommandExecutionRequestApprovalResponse & FileChangeRequestApprovalResponse);
  }

  /**
   * Adds `note` to the running turn, or keeps it in `notes` for the next one when Codex refuses
   * it or does not answer in STEER_LIMIT_MS; a late yes takes it back out of `notes`.
   */
  async function steer(note: string): Promise<void> {
    if (turnId === null) return void notes.push(note);
    const params: TurnSteerParams = {
      threadId,
      expectedTurnId: turnId,
      input: [{ type: 'text', text: note, text_elements: [] }],
    };
    let late = false;
    await new Promise<void>((done) => {
      const timer = timers.setTimeout(() => {
        late = true;
        notes.push(note);
        done();
      }, STEER_LIMIT_MS);
      void server.request('turn/steer', params).then(
        () => {
          if (late) drop(notes, note);
          timers.clearTimeout(timer);
          done();
        },
        () => {
          if (!late) notes.push(note);
          late = true;
          timers.clearTimeout(timer);
          done();
        },
      );
    });
  }

  async function askAll(id: RequestId, params: NonNullable<ReturnType<typeof parseUserInput>>) {
    const cleared = new AbortController();
    unanswered.set(id, cleared);
    ctx.toolStarted(CODEX_TOOLS.input);
    let answers: CodexAnswers;
    try {
      answers = await ctx.ask(params.questions.map(questionOf), cleared.signal);
    } catch {
      answers = { ok: false, why: 'cancelled' };
    }
    ctx.toolFinished(answers.ok ? undefined : answers.why);
    // No answer (deny, expiry, a closed card): Codex gets an empty answer and the turn goes on.
    if (unanswered.delete(id)) server.respond(id, userInputResponse(params.questions, answers));
  }

  return {
    ended,
    get turnId() {
      return turnId;
    },
    started(id: string) {
      turnId = id;
    },
    notification(method: string, params: unknown) {
      switch (method) {
        case 'item/started':
        case 'item/completed': {
          const p = shaped<ItemCompletedNotification>(params, {
            item: 'object',
            threadId: 'string',
          });
          const item = p?.item;
          if (p === null || p.threadId !== threadId || !item || typeof item.id !== 'string') return;
          if (method === 'item/started') itemStarted(item);
          else itemCompleted(item);
          return;
        }
        case 'thread/tokenUsage/updated': {
          const p = shaped<ThreadTokenUsageUpdatedNotification>(params, { tokenUsage: 'object' });
          const total = p?.tokenUsage.total;
          if (
            total &&
            typeof total.inputTokens === 'number' &&
            typeof total.outputTokens === 'number'
          )
            ctx.usage?.({ inputTokens: total.inputTokens, outputTokens: total.outputTokens });
          return;
        }
        case 'error': {
          const p = shaped<ErrorNotification>(params, { error: 'object', willRetry: 'boolean' });
          if (p !== null && !p.willRetry && typeof p.error.message === 'string')
            lastError = p.error.message;
          return;
        }
        case 'serverRequest/resolved': {
          const p = shaped<ServerRequestResolvedNotification>(params, { threadId: 'string' });
          const c = p !== null ? unanswered.get(p.requestId) : undefined;
          if (c !== undefined && p !== null) {
            unanswered.delete(p.requestId);
            c.abort('withdrawn by Codex');
          }
          return;
        }
        case 'turn/completed': {
          const p = shaped<TurnCompletedNotification>(params, {
            threadId: 'string',
            turn: 'object',
          });
          if (p === null || p.threadId !== threadId) return;
          if (turnId !== null && p.turn.id !== turnId) return;
          const status = p.turn.status === 'inProgress' ? 'failed' : p.turn.status;
          settle({ status, error: p.turn.error?.message ?? lastError });
          return;
        }
      }
    },
    request(method: string, params: unknown, id: RequestId) {
      if (method === SERVER_REQUESTS.commandApproval) {
        const p = parseCommandApproval(params);
        if (p !== null) return void decide(id, p.itemId, () => commandAsk(p, cwd));
      } else if (method === SERVER_REQUESTS.fileChangeApproval) {
        const p = parseFileChangeApproval(params);
        if (p !== null)
          return void decide(id, p.itemId, () =>
            fileChangeAsk(p, open.get(p.itemId)?.changes, cwd),
          );
      } else if (method === SERVER_REQUESTS.userInput) {
        const p = parseUserInput(params);
        if (p !== null) return void askAll(id, p);
      } else {
        // Fail closed: a request this adapter does not know is refused, never allowed.
        return server.respondError(id, METHOD_NOT_FOUND, `dsh-dispatch does not handle ${method}`);
      }
      server.respondError(id, -32602, `invalid params for ${method}`);
    },
    /** The process is gone: what was open closes, and the turn ends with why. */
    lost(why: string) {
      for (const c of unanswered.values()) c.abort(why);
      unanswered.clear();
      settle({ status: 'lost', error: why });
    },
    outcome(end: TurnEnd, stopReason: unknown): TurnOutcome {
      for (const c of unanswered.values()) c.abort('the turn ended');
      unanswered.clear();
      // A tool that was running when the turn ended did not finish.
      for (let n = open.size; n > 0; n--)
        ctx.toolFinished(end.status === 'completed' ? undefined : 'cancelled');
      open.clear();
      if (end.status === 'interrupted') {
        const text = stoppedText(stopReason);
        ctx.assistant(text);
        return { ok: false, summary: text, placeholder: false, close: false };
      }
      if (end.status !== 'completed') {
        const text = end.error ?? lastError ?? `Codex ended the turn (${end.status}).`;
        ctx.assistant(text);
        return { ok: false, summary: text, placeholder: false, close: false };
      }
      return lastText === null
        ? { ok: true, summary: NO_TEXT_SUMMARY, placeholder: true, close: false }
        : { ok: true, summary: lastText, placeholder: false, close: false };
    },
  };
}
