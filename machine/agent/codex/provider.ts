import type { ApprovalAsk } from '../../approvals/approval-offer.ts';
import type { AgentContext, AgentProvider, TurnOutcome } from '../agent.ts';
import { checkCodex } from './available.ts';
import { resolveCodex } from './binary.ts';
import type { CodexAsk, CodexContext } from './context.ts';
import { makeCodexSession } from './session.ts';

// `--agent codex` (E10): the Codex adapter (`codex app-server`) behind the machine's agent seam.
// This file is the wiring only: the binary (binary.ts: `--codex-path`, else `codex` on PATH, else
// the one in agents/node_modules), Codex's requests as the machine's approval kinds, and a lost thread said and
// started anew. The rest is the adapter's (docs/agents-codex.md).

export const CODEX_AGENT = 'codex';

export type CodexProviderOptions = {
  /** `--codex-path`. */
  codexPath?: string;
  /** Tests only: an isolated environment (HOME, CODEX_HOME with a fake provider). */
  env?: NodeJS.ProcessEnv;
  /** Tests only: the flags that keep Codex off the internet. */
  extraArgs?: readonly string[];
};

/**
 * A command may be remembered by its command line (E2) but never edited (E3: Codex runs what it
 * asked for); a change to one file is keyed like a write to it; several files are one risky
 * request that no rule matches.
 */
export function codexApprovalAsk(ask: CodexAsk): ApprovalAsk {
  if (ask.tool === 'exec_command')
    return {
      tool: 'run',
      agentTool: ask.tool,
      title: ask.title,
      detail: ask.detail,
      command: ask.command,
      editable: false,
    };
  const [only, ...more] = ask.paths;
  return only !== undefined && more.length === 0
    ? { tool: 'write', agentTool: ask.tool, title: ask.title, detail: ask.detail, path: only }
    : { tool: 'other', agentTool: ask.tool, title: ask.title, detail: ask.detail };
}

function codexContext(ctx: AgentContext): CodexContext {
  return {
    signal: ctx.signal,
    approve: (ask, cleared) => ctx.approve(codexApprovalAsk(ask), cleared),
    ask: (questions, cleared) => ctx.ask(questions, cleared),
    toolStarted: (tool) => ctx.toolStarted(tool),
    toolFinished: (refused) => ctx.toolFinished(refused),
    assistant: (text) => ctx.assistant(text),
    usage: (u) => ctx.usage(u),
    model: (name) => ctx.model(name),
    nativeSession: (id) => ctx.nativeSession(id),
  };
}

export function codexProvider(o: CodexProviderOptions = {}): AgentProvider {
  const bin = resolveCodex(o.codexPath, o.env?.PATH ?? process.env.PATH);
  return {
    name: CODEX_AGENT,
    check: () => checkCodex(bin, o.env),
    open(options) {
      if (!bin.ok) throw new Error(bin.message);
      const session = makeCodexSession({
        cwd: options.cwd,
        access: options.access,
        ...(options.resume !== undefined ? { resume: options.resume } : {}),
        codex: bin.launch,
        ...(options.timers !== undefined ? { timers: options.timers } : {}),
        ...(o.env !== undefined ? { env: o.env } : {}),
        ...(o.extraArgs !== undefined ? { extraArgs: o.extraArgs } : {}),
      });
      return {
        async runTurn(prompt: string, ctx: AgentContext): Promise<TurnOutcome> {
          const outcome = await session.runTurn(prompt, codexContext(ctx));
          if (!session.resumeFailed || ctx.signal.aborted) return outcome;
          // Codex no longer has the stored thread: say so, and run the prompt in a new one.
          ctx.assistant(
            'Could not resume the earlier Codex thread; started a new one — the agent does not remember it.',
          );
          session.forgetThread();
          return session.runTurn(prompt, codexContext(ctx));
        },
        close: () => session.close(),
      };
    },
  };
}
