import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  SessionModeState,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import type {
  AgentContext,
  AgentSession,
  AgentUsage,
  OpenOptions,
  Refusal,
  TurnOutcome,
} from '../agent.ts';
import { outcomeOf } from '../agent.ts';
import { realTimers } from '../../timers.ts';
import { endProcesses, startedSince, treeOf } from '../codex/process-tree.ts';
import { startAcp, type AcpProcess } from './connection.ts';
import type { AcpAgentSpec } from './declare.ts';
import {
  addUsage,
  agentToolOf,
  elicitationAnswer,
  elicitationFields,
  permissionAsk,
  permissionOutcome,
  planText,
  turnUsage,
} from './mapping.ts';

// One session of an ACP agent (E10): one agent process, started on the first turn and kept for
// the next ones (`session/new`; after a machine restart `session/load` of the stored id when the
// agent offers `loadSession`). A turn is one `session/prompt`. Every permission request goes to
// the phone (E2 rules are applied by the machine before asking); an agent that starts in a mode
// that decides itself is switched to `default`, the mode that asks. Stop (E4) sends
// `session/cancel` AND ends what the turn started (each command's process group) itself; past
// the backstop the whole agent goes. An agent that can load its session is not kept idle for
// ever: after IDLE_LIMIT_MS without a turn it is ended, and the next reply loads the session.

/** E4: how long `session/cancel` may take to end the prompt before the agent is ended. */
export const CANCEL_BACKSTOP_MS = 3000;
/** E4: a command the turn started gets this long after SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 500;
/**
 * When the connection closes under a request the agent has most likely died; its pipe closes a
 * moment before its exit is seen, and the exit (code or signal, the end of its stderr) says more.
 */
const EXIT_SEEN_MS = 1000;
/**
 * E10: how long an agent that offers `loadSession` is kept between turns (idle, holding the
 * conversation); then it is ended, and the next reply starts it again with `session/load`. One
 * without `loadSession` is kept: ending it would lose the conversation.
 */
export const IDLE_LIMIT_MS = 10 * 60_000;
/**
 * `session/load` replays the history as updates, and an agent may go on replaying after it
 * answered (Gemini CLI streams it unawaited, with no end marker): the replay is over once the
 * session has been quiet this long (bounded by REPLAY_MAX_MS). Its updates never reach the turn.
 */
export const REPLAY_QUIET_MS = 300;
export const REPLAY_MAX_MS = 3000;
const REPLAY_POLL_MS = 50;
/** The mode that asks before acting, where an agent offers modes (Claude's adapter: `auto`). */
export const ASKING_MODE = 'default';

export type AcpSessionConfig = {
  spec: AcpAgentSpec;
  /** The agent's environment; the machine's own when absent (tests isolate it). */
  env?: NodeJS.ProcessEnv;
  /** Readies the agent's own store before `session/load` (Gemini: gemini-history.ts). */
  beforeLoad?: (sessionId: string, env: NodeJS.ProcessEnv) => void;
};

type Turn = {
  ctx: AgentContext;
  /** Aborts when the turn ends: a card still open is withdrawn. */
  cleared: AbortController;
  tools: Map<string, { name: string; done: boolean; refused?: Refusal }>;
  text: string;
  all: string[];
};

/** How the agent died, when the connection closed because it did; null for any other failure. */
async function deathOf(p: AcpProcess, name: string): Promise<string | null> {
  if (!p.conn.signal.aborted) return null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const why = await Promise.race([
    p.exited,
    new Promise<null>((r) => (timer = setTimeout(() => r(null), EXIT_SEEN_MS))),
  ]);
  clearTimeout(timer);
  return why === null ? null : `${name} stopped (${why})`;
}

const stoppedText = (reason: unknown) =>
  typeof reason === 'string' ? `Turn stopped: ${reason}.` : 'Turn stopped.';

export type AcpSession = AgentSession & {
  /** The agent's pid while its process runs (tests check it is gone). */
  readonly pid: number | null;
};

export function openAcpSession(cfg: AcpSessionConfig, o: OpenOptions): AcpSession {
  const name = cfg.spec.name;
  let proc: AcpProcess | null = null;
  /** The agent's session: the stored one to load, then whichever this session runs in. */
  let sessionId: string | null = o.resume ?? null;
  /** T3: the Stop backstop and the idle limit run on the machine's timers. */
  const timers = o.timers ?? realTimers();
  let idle: ReturnType<typeof timers.setTimeout> | null = null;
  let loading = false;
  let lastReplayAt = 0;
  let turn: Turn | null = null;
  let closed = false;
  let usage: AgentUsage | null = null;
  let cost: number | undefined;

  const flush = (t: Turn) => {
    if (t.text.trim() !== '') {
      t.ctx.assistant(t.text);
      t.all.push(t.text);
    }
    t.text = '';
  };

  const seen = (t: Turn, call: ToolCallUpdate) => {
    let tool = t.tools.get(call.toolCallId);
    if (tool === undefined) {
      flush(t);
      tool = { name: agentToolOf(call), done: false };
      t.tools.set(call.toolCallId, tool);
      t.ctx.toolStarted(tool.name);
      if (call.title) t.ctx.assistant(`${tool.name}: ${call.title}`);
    }
    if (!tool.done && (call.status === 'completed' || call.status === 'failed')) {
      tool.done = true;
      t.ctx.toolFinished(tool.refused);
    }
  };

  const handlers = {
    update(n: SessionNotification) {
      const t = turn;
      // `session/load` replays the history: the transcript has it already.
      if (loading) lastReplayAt = Date.now();
      if (loading || t === null || n.sessionId !== sessionId) return;
      const u = n.update;
      switch (u.sessionUpdate) {
        case 'agent_message_chunk':
          if (u.content.type === 'text') t.text += u.content.text;
          return;
        case 'tool_call':
        case 'tool_call_update':
          seen(t, u);
          return;
        case 'plan':
          flush(t);
          t.ctx.assistant(planText(u.entries));
          return;
        case 'usage_update':
          if (u.cost?.currency === 'USD') cost = u.cost.amount;
          return;
        default:
          return;
      }
    },
    async permission(
      r: RequestPermissionRequest,
      signal: AbortSignal,
    ): Promise<RequestPermissionResponse> {
      const t = turn;
      if (t === null || r.sessionId !== sessionId) return { outcome: { outcome: 'cancelled' } };
      seen(t, r.toolCall);
      const cleared = AbortSignal.any([t.cleared.signal, signal]);
      const a = await t.ctx.approve(permissionAsk(r.toolCall, o.cwd), cleared);
      if (!a.allowed) t.tools.get(r.toolCall.toolCallId)!.refused = a.why;
      return permissionOutcome(a, r.options);
    },
    async elicitation(
      r: CreateElicitationRequest,
      signal: AbortSignal,
    ): Promise<CreateElicitationResponse> {
      const t = turn;
      const fields = elicitationFields(r);
      if (t === null || fields === null) return { action: 'decline' };
      flush(t);
      const a = await t.ctx.ask(
        fields.map((f) => f.question),
        AbortSignal.any([t.cleared.signal, signal]),
      );
      return elicitationAnswer(fields, a);
    },
  };

  async function setAskingMode(p: AcpProcess, modes: SessionModeState | null | undefined) {
    if (modes === null || modes === undefined) return;
    if (modes.currentModeId === ASKING_MODE) return;
    if (!modes.availableModes.some((m) => m.id === ASKING_MODE)) return;
    await p.conn.agent.request('session/set_mode', { sessionId: sessionId!, modeId: ASKING_MODE });
  }

  async function replayOver(): Promise<void> {
    const limit = Date.now() + REPLAY_MAX_MS;
    lastReplayAt = Math.max(lastReplayAt, Date.now());
    while (Date.now() - lastReplayAt < REPLAY_QUIET_MS && Date.now() < limit)
      await new Promise((r) => setTimeout(r, REPLAY_POLL_MS));
  }

  async function start(ctx: AgentContext): Promise<AcpProcess> {
    const p = await startAcp(cfg.spec, o.cwd, cfg.env ?? process.env, handlers);
    try {
      if (sessionId !== null && p.init.agentCapabilities?.loadSession === true) {
        loading = true;
        try {
          cfg.beforeLoad?.(sessionId, cfg.env ?? process.env);
          const loaded = await p.conn.agent.request('session/load', {
            sessionId,
            cwd: o.cwd,
            mcpServers: [],
          });
          await setAskingMode(p, loaded.modes);
          await replayOver();
          return p;
        } catch (e) {
          ctx.assistant(
            `Could not resume the earlier ${name} conversation (${(e as Error).message}); started a new one — the agent does not remember it.`,
          );
        } finally {
          loading = false;
        }
      } else if (sessionId !== null) {
        ctx.assistant(
          `${name} cannot load an earlier session (it does not offer loadSession); started a new one — the agent does not remember it.`,
        );
      }
      const created = await p.conn.agent.request('session/new', { cwd: o.cwd, mcpServers: [] });
      sessionId = created.sessionId;
      // E11.6: the id is stored only when the agent can load it; without loadSession no restart
      // can resume the conversation, so the machine ends it `machine-restarted` instead.
      if (p.init.agentCapabilities?.loadSession === true) ctx.nativeSession(sessionId);
      await setAskingMode(p, created.modes);
      return p;
    } catch (e) {
      p.kill();
      throw e;
    }
  }

  const endAgent = () => {
    proc?.kill();
    proc = null;
  };

  const stopIdle = () => {
    if (idle !== null) timers.clearTimeout(idle);
    idle = null;
  };
  /** E10: an idle agent that can load its session is ended after IDLE_LIMIT_MS. */
  const armIdle = () => {
    stopIdle();
    const p = proc;
    if (closed || p === null || p.init.agentCapabilities?.loadSession !== true) return;
    idle = timers.setTimeout(() => {
      idle = null;
      if (proc === p && turn === null) endAgent();
    }, IDLE_LIMIT_MS);
  };

  async function runTurn(prompt: string, ctx: AgentContext): Promise<TurnOutcome> {
    stopIdle();
    try {
      return await turnOf(prompt, ctx);
    } finally {
      armIdle();
    }
  }

  async function turnOf(prompt: string, ctx: AgentContext): Promise<TurnOutcome> {
    if (closed) return outcomeOf(false, 'The session was closed.');
    let p: AcpProcess;
    try {
      if (proc === null) {
        proc = await start(ctx);
        void proc.exited.then(() => {
          if (proc === p) proc = null;
        });
      }
      p = proc;
    } catch (e) {
      proc = null;
      const said = `${name} could not start: ${(e as Error).message}`;
      ctx.assistant(said);
      return outcomeOf(false, said);
    }
    if (ctx.signal.aborted) {
      const said = stoppedText(ctx.signal.reason);
      ctx.assistant(said);
      return outcomeOf(false, said);
    }
    const t: Turn = { ctx, cleared: new AbortController(), tools: new Map(), text: '', all: [] };
    turn = t;
    const before = new Set(treeOf(p.pid).map((s) => s.pid));
    let backstop: ReturnType<typeof timers.setTimeout> | undefined;
    const onStop = () => {
      void p.conn.agent.notify('session/cancel', { sessionId: sessionId! }).catch(() => {});
      // The agent is asked to stop; what the turn started ends now, whatever the agent does.
      void endProcesses(startedSince(p.pid, before), STOP_GRACE_MS);
      backstop = timers.setTimeout(() => {
        if (proc === p) endAgent();
      }, CANCEL_BACKSTOP_MS);
    };
    ctx.signal.addEventListener('abort', onStop, { once: true });
    let result: PromptResponse | null = null;
    let failure: string | null = null;
    try {
      result = await Promise.race([
        p.conn.agent.request('session/prompt', {
          sessionId: sessionId!,
          prompt: [{ type: 'text', text: prompt }],
        }),
        p.exited.then((why) => Promise.reject(new Error(`${name} stopped (${why})`))),
      ]);
    } catch (e) {
      failure = (await deathOf(p, name)) ?? (e as Error).message;
    } finally {
      ctx.signal.removeEventListener('abort', onStop);
      if (backstop !== undefined) timers.clearTimeout(backstop);
      flush(t);
      turn = null;
      t.cleared.abort();
      for (const tool of t.tools.values())
        if (!tool.done)
          ctx.toolFinished(tool.refused ?? (ctx.signal.aborted ? 'cancelled' : undefined));
    }
    // Nothing the turn started runs on after it (a failed or stopped turn's commands too).
    await endProcesses(startedSince(p.pid, before), STOP_GRACE_MS);
    if (result !== null) {
      const { counts, model } = turnUsage(result);
      if (model !== null) ctx.model(model);
      if (counts !== null || cost !== undefined) {
        usage = addUsage(usage, counts ?? { input: 0, output: 0 }, cost);
        ctx.usage(usage);
      }
    }
    if (ctx.signal.aborted) {
      const said = stoppedText(ctx.signal.reason);
      ctx.assistant(said);
      return outcomeOf(false, said);
    }
    if (result === null) {
      // The agent answered the prompt with an error (its model server failed…) or died: its own
      // words are the summary. A dead agent leaves nothing behind; the next turn starts anew.
      if (proc !== p) p.kill();
      const said = failure ?? `${name} ended the turn without an answer.`;
      ctx.assistant(said);
      return outcomeOf(false, said);
    }
    const text = t.all.join('\n\n');
    if (result.stopReason === 'end_turn') return outcomeOf(true, text);
    const why = `${name} ended the turn: ${result.stopReason}`;
    return outcomeOf(false, text.trim() !== '' ? `${text}\n\n(${why})` : why);
  }

  return {
    runTurn,
    get pid() {
      return proc?.pid ?? null;
    },
    async close() {
      closed = true;
      stopIdle();
      turn?.cleared.abort();
      endAgent();
    },
  };
}
