import { spawn, type ChildProcess } from 'node:child_process';
import type {
  CanUseTool,
  PermissionResult,
  SDKMessage,
  SpawnOptions,
} from '@anthropic-ai/claude-agent-sdk';
import type {
  AgentContext,
  AgentSession,
  ApprovalAnswer,
  OpenOptions,
  Refusal,
  TurnOutcome,
} from '../agent.ts';
import { outcomeOf } from '../agent.ts';
import { killMarked, killTree, newRunMark, RUN_MARK_ENV, whenMarkedGone } from '../process-tree.ts';
import { realTimers } from '../../timers.ts';
import { answersOf, approvalAsk, callLine, questionsOf, resultText } from './tools.ts';

// One Claude Code session (E10): each turn is one `query()` of the SDK in the session's folder,
// permission mode `default` (never bypass, never acceptEdits), every permission request through
// `canUseTool` to the phone. The turn after the first resumes Claude's own session id, so a reply
// continues the conversation — also in a new machine process after a restart. The CLI runs in a
// process group of its own, so a stop (E4) or the machine's shutdown ends it and its tools.

export type ClaudeConfig = {
  path: string;
  /** Tests only: an isolated environment (HOME, CLAUDE_CONFIG_DIR, ANTHROPIC_BASE_URL…). */
  env?: Record<string, string>;
  /** Tests only: `[]` keeps a developer's own settings out; absent = the user's settings. */
  settingSources?: [];
};

/** E4: how long `interrupt()` gets before the CLI's process tree is killed. */
export const INTERRUPT_BACKSTOP_MS = 3000;
/** After a turn's result, how long the CLI gets to exit by itself (it writes its session file). */
const EXIT_GRACE_MS = 3000;
const STDERR_TAIL_CHARS = 2000;
/** How long killed processes get to die before a turn is reported anyway. */
const GONE_LIMIT_MS = 2000;

/** Said to Claude with a deny: why the tool did not run. */
export function denial(a: Extract<ApprovalAnswer, { allowed: false }>): string {
  const why: Record<Refusal, string> = {
    denied: 'The user denied this from their phone.',
    expired: 'No decision came from the phone in time, so this was not allowed.',
    cancelled: 'The request was cancelled because the turn was stopped.',
  };
  return a.message !== undefined && a.message !== ''
    ? `${why[a.why]} They said: ${a.message}`
    : why[a.why];
}

const RESUME_FAILED = /no conversation found|session .*not found/i;

export function openClaudeSession(cfg: ClaudeConfig, o: OpenOptions): AgentSession {
  let resume = o.resume;
  // T3: the Stop backstop runs on the machine's timers.
  const timers = o.timers ?? realTimers();
  const live = new Set<ChildProcess>();
  let closed = false;
  // E4: a stopped turn is reported at Claude's `result` (~30 ms after the interrupt); its CLI
  // then takes ~1.5 s more to exit. The next turn resumes Claude's session only once that CLI
  // is gone (or ended after EXIT_GRACE_MS), so two CLIs never write one session file.
  let exiting: Promise<void> = Promise.resolve();

  // E10 faults: the CLI's environment carries the session's mark, and so does every tool it
  // runs; a tool in a group of its own whose CLI died is an orphan the tree walk cannot reach,
  // so what is left is found by the mark.
  const mark = newRunMark();
  const endAll = () => {
    for (const child of live) if (child.pid !== undefined) killTree(child.pid);
    killMarked(mark);
  };
  /** endAll, then until what it killed has died: a turn reported ended leaves nothing running. */
  const endAllGone = async () => {
    endAll();
    await whenMarkedGone(mark, GONE_LIMIT_MS);
  };

  async function attempt(prompt: string, ctx: AgentContext) {
    await exiting;
    let stderrTail = '';
    const exits: Array<Promise<void>> = [];
    const spawnClaude = (so: SpawnOptions) => {
      const child = spawn(so.command, so.args, {
        cwd: so.cwd ?? o.cwd,
        env: { ...(so.env as NodeJS.ProcessEnv), [RUN_MARK_ENV]: mark },
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      live.add(child);
      exits.push(new Promise((r) => child.once('exit', () => r())));
      child.once('exit', () => live.delete(child));
      child.stderr?.on('data', (d: Buffer) => {
        stderrTail = (stderrTail + d.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      so.signal.addEventListener('abort', () => child.pid !== undefined && killTree(child.pid));
      return child;
    };

    const refused = new Map<string, Refusal>();
    const toolNames = new Map<string, string>();
    const canUseTool: CanUseTool = async (tool, input, opts): Promise<PermissionResult> => {
      if (tool === 'AskUserQuestion') {
        const questions = questionsOf(input);
        const a = await ctx.ask(questions, opts.signal);
        if (!a.ok) {
          refused.set(opts.toolUseID, a.why);
          return { behavior: 'deny', message: `The user gave no answer (${a.why}).` };
        }
        return {
          behavior: 'allow',
          updatedInput: { ...input, answers: answersOf(questions, a.choices) },
        };
      }
      // Claude's signal aborts when it stops waiting for this answer: the card closes then.
      const a = await ctx.approve(approvalAsk(tool, input, o.cwd), opts.signal);
      if (a.allowed) {
        // E3: only Bash is editable; the edited command runs instead.
        const updatedInput = a.edited !== undefined ? { ...input, command: a.edited } : input;
        return { behavior: 'allow', updatedInput };
      }
      refused.set(opts.toolUseID, a.why);
      return { behavior: 'deny', message: denial(a) };
    };

    const controller = new AbortController();
    // Loaded on the first turn: a machine without Claude sessions never pays for the SDK.
    const { query } = await import('@anthropic-ai/claude-agent-sdk');
    const q = query({
      prompt,
      options: {
        cwd: o.cwd,
        permissionMode: 'default',
        canUseTool,
        pathToClaudeCodeExecutable: cfg.path,
        spawnClaudeCodeProcess: spawnClaude,
        abortController: controller,
        ...(resume !== undefined ? { resume } : {}),
        ...(cfg.env !== undefined ? { env: cfg.env } : {}),
        ...(cfg.settingSources !== undefined ? { settingSources: cfg.settingSources } : {}),
      },
    });

    let backstop: ReturnType<typeof timers.setTimeout> | undefined;
    const onStop = () => {
      void q.interrupt().catch(() => {});
      backstop = timers.setTimeout(() => {
        endAll();
        controller.abort();
      }, INTERRUPT_BACKSTOP_MS);
    };
    if (ctx.signal.aborted) onStop();
    else ctx.signal.addEventListener('abort', onStop, { once: true });

    let final: { ok: boolean; text: string } | null = null;
    let last = '';
    let failure: string | null = null;
    const handle = (m: SDKMessage) => {
      if (m.type === 'system' && m.subtype === 'init') {
        resume = m.session_id;
        ctx.nativeSession(m.session_id);
        ctx.model(m.model);
      } else if (m.type === 'assistant') {
        for (const block of m.message.content) {
          if (block.type === 'text' && block.text.trim() !== '') {
            last = block.text;
            ctx.assistant(block.text);
          } else if (block.type === 'tool_use') {
            toolNames.set(block.id, block.name);
            ctx.toolStarted(block.name);
            ctx.assistant(callLine(block.name, block.input as Record<string, unknown>));
          }
        }
      } else if (m.type === 'user' && Array.isArray(m.message.content)) {
        for (const block of m.message.content) {
          if (typeof block !== 'object' || block.type !== 'tool_result') continue;
          const name = toolNames.get(block.tool_use_id) ?? 'tool';
          ctx.toolFinished(refused.get(block.tool_use_id));
          const text = resultText(block.content);
          ctx.assistant(
            `${name} ${block.is_error === true ? 'failed' : 'result'}${text ? `:\n${text}` : ''}`,
          );
        }
      } else if (m.type === 'result') {
        // A run that failed before any model call (a resume of a lost conversation) reports zeros.
        if (m.subtype !== 'success' && m.num_turns === 0) {
          final = { ok: false, text: m.errors.join('\n') };
          return;
        }
        const usage = Object.values(m.modelUsage ?? {});
        ctx.usage({
          inputTokens: usage.reduce(
            (n, u) => n + u.inputTokens + u.cacheReadInputTokens + u.cacheCreationInputTokens,
            0,
          ),
          outputTokens: usage.reduce((n, u) => n + u.outputTokens, 0),
          costUsd: m.total_cost_usd,
        });
        final =
          m.subtype === 'success'
            ? { ok: !m.is_error, text: m.result }
            : { ok: false, text: m.errors.join('\n') };
      }
    };
    // Read by hand, not `for await`: leaving that loop early would end the CLI mid-write.
    const messages = q[Symbol.asyncIterator]();
    let reported = false;
    let stoppedAt: () => void = () => {};
    const resulted = new Promise<'stopped'>((r) => (stoppedAt = () => r('stopped')));
    const reading = (async () => {
      for (;;) {
        const next = await messages.next();
        if (next.done === true) return 'ended' as const;
        if (reported) continue; // the turn was reported stopped: the rest is the CLI's exit
        handle(next.value);
        if (next.value.type === 'result' && ctx.signal.aborted) stoppedAt();
      }
    })();
    try {
      if ((await Promise.race([reading, resulted])) === 'stopped') reported = true;
    } catch (e) {
      failure = (e as Error).message;
    } finally {
      ctx.signal.removeEventListener('abort', onStop);
      if (backstop !== undefined) timers.clearTimeout(backstop);
    }
    // The CLI exits once its stdin closes; whatever is left after a grace is ended.
    const exited = async () => {
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(exits),
        new Promise<void>((r) => (grace = setTimeout(r, EXIT_GRACE_MS))),
      ]);
      clearTimeout(grace);
      await endAllGone();
    };
    if (reported) {
      // E4: Claude said the turn ended; the phone is told now, the CLI finishes meanwhile.
      exiting = Promise.all([reading.catch(() => undefined), exited()]).then(() => undefined);
    } else if (!ctx.signal.aborted) {
      await exited();
    } else {
      // Stopped before any result (the backstop, or the CLI died): nothing of it runs on.
      await endAllGone();
    }
    return { final: final as { ok: boolean; text: string } | null, last, failure, stderrTail };
  }

  async function runTurn(prompt: string, ctx: AgentContext): Promise<TurnOutcome> {
    if (closed) return outcomeOf(false, 'The session was closed.');
    let r = await attempt(prompt, ctx);
    const why = r.final?.ok === false ? r.final.text : (r.failure ?? '');
    if (
      resume === o.resume &&
      o.resume !== undefined &&
      RESUME_FAILED.test(`${why}\n${r.stderrTail}`)
    ) {
      // The agent lost the conversation (its session file is gone): say so and start afresh.
      ctx.assistant(
        `Could not resume the earlier conversation (${why.trim() || 'not found'}); started a new one — the agent does not remember it.`,
      );
      resume = undefined;
      r = await attempt(prompt, ctx);
    }
    if (ctx.signal.aborted) {
      const reason: unknown = ctx.signal.reason;
      const said = typeof reason === 'string' ? `Turn stopped: ${reason}.` : 'Turn stopped.';
      ctx.assistant(said);
      return outcomeOf(false, said);
    }
    if (r.final !== null) {
      const text = r.final.text.trim() !== '' ? r.final.text : r.last;
      if (!r.final.ok && text.trim() === '')
        return outcomeOf(false, 'Claude Code ended the turn with an error.');
      return outcomeOf(r.final.ok, text);
    }
    // No result: the CLI died or could not start. Its own words are the summary.
    const said = `Claude Code stopped: ${(r.failure ?? 'no result').trim()}${r.stderrTail.trim() ? `\n${r.stderrTail.trim().slice(-500)}` : ''}`;
    ctx.assistant(said);
    return outcomeOf(false, said);
  }

  return {
    runTurn,
    async close() {
      closed = true;
      endAll();
    },
  };
}
