import type { QuestionItem, SessionEndReason } from '../../protocol/index.ts';
import type { AgentAnswers, AgentQuestion, TurnOutcome } from '../agent/agent.ts';
import { clampItems, clampSummary } from '../wire/outbound.ts';
import type { Core } from '../core.ts';
import { addStep, EMPTY_TRAIL, markLast } from './steps.ts';
import { makeApprove } from './approve.ts';
import { reportingHost } from '../links/tool-errors.ts';
import type { SessionRecord } from './sessions.ts';

// One turn of one session: the prompt becomes a user transcript entry, the session's agent runs
// behind the E10 seam (machine/agent/agent.ts) — its approvals and questions go to the pending
// registry, its tools to the ToolHost (the mock) or its own process (a real agent) — and the
// turn ends with `turn.final` (plus `error` when it failed). Steps are cleared when a new turn
// starts, not when it ends. Nothing here knows which agent runs.

export type Turns = ReturnType<typeof makeTurns>;

/** E4: the abort reason of a turn stopped by `session.interrupt`; said in its summary. */
export const INTERRUPTED_FROM_PHONE = 'stopped from the phone';

export function makeTurns(core: Core) {
  const setState = (s: SessionRecord, state: SessionRecord['state']) => {
    s.state = state;
    s.lastActivity = core.timers.now();
    core.scheduler.stateChanged(s.sessionId);
  };

  const approve = makeApprove(core);

  async function run(s: SessionRecord, prompt: string): Promise<void> {
    const abort = new AbortController();
    s.turn = abort;
    s.trail = EMPTY_TRAIL;
    s.activity = undefined;
    s.transcript.append('user', prompt, core.timers.now());
    setState(s, 'running');
    const provider = core.agents.get(s.agent);
    let outcome: TurnOutcome;
    if (provider === undefined) {
      const said = `The agent "${s.agent}" is not available on this machine now.`;
      s.transcript.append('assistant', said, core.timers.now());
      outcome = { ok: false, summary: said, placeholder: false, close: false };
    } else {
      s.agentSession ??= provider.open({
        cwd: s.cwd,
        access: s.access,
        timers: core.timers,
        ...(s.nativeId !== undefined ? { resume: s.nativeId } : {}),
      });
      outcome = await s.agentSession.runTurn(prompt, {
        cwd: s.cwd,
        signal: abort.signal,
        host: () =>
          reportingHost(core.host(), (_code, message) =>
            core.send({
              v: 1,
              type: 'error',
              ts: core.timers.now(),
              message: clampSummary(message),
              context: 'tool',
              sessionId: s.sessionId,
            }),
          ),
        usage: (u) => {
          s.usage = u;
          core.scheduler.stateChanged(s.sessionId);
        },
        model: (name) => {
          if (s.model === name) return;
          s.model = name;
          core.scheduler.stateChanged(s.sessionId);
        },
        nativeSession: (id) => {
          if (s.nativeId === id) return;
          // Written at once (one SQLite transaction): a restart right after still resumes it.
          s.nativeId = id;
          core.sessions.save(s);
        },
        approve: (ask, cleared) =>
          approve(
            s,
            ask,
            {
              answered: () => {
                if (s.turn === abort) setState(s, 'running');
              },
            },
            cleared,
          ),
        ask: async (questions: AgentQuestion[], cleared?: AbortSignal): Promise<AgentAnswers> => {
          const items: QuestionItem[] = questions.map((q, n) => ({
            id: `q${n + 1}`,
            prompt: q.header !== undefined ? `${q.header}: ${q.prompt}` : q.prompt,
            options: q.options.map((label, i) => ({ id: String(i + 1), label })),
            multiSelect: q.multiSelect,
            allowFreeText: q.allowFreeText,
          }));
          const { question, outcome: answered } = core.pending.openQuestion(
            s.sessionId,
            clampItems(items),
          );
          setState(s, 'awaiting_approval');
          const withdraw = () => core.pending.withdrawQuestion(question.questionId);
          if (cleared?.aborted) withdraw();
          else cleared?.addEventListener('abort', withdraw, { once: true });
          const o = await answered;
          cleared?.removeEventListener('abort', withdraw);
          if (s.turn === abort) setState(s, 'running');
          if (!('answers' in o)) return { ok: false, why: o.resolution };
          const choices = items.map((item) => {
            const a = o.answers.find((x) => x.itemId === item.id);
            const labels = (a?.optionIds ?? []).map(
              (id) => item.options.find((opt) => opt.id === id)?.label ?? id,
            );
            return a?.freeText !== undefined ? { labels, freeText: a.freeText } : { labels };
          });
          return { ok: true, choices };
        },
        toolStarted: (tool) => {
          s.trail = addStep(s.trail, tool);
          s.activity = tool;
          s.lastActivity = core.timers.now();
          core.scheduler.activityChanged(s.sessionId);
        },
        toolFinished: (refused) => {
          if (refused !== undefined && s.activity !== undefined)
            s.trail = markLast(s.trail, s.activity, refused);
          s.activity = undefined;
          if (refused !== undefined) core.scheduler.stateChanged(s.sessionId);
          else core.scheduler.activityChanged(s.sessionId);
        },
        assistant: (text) => s.transcript.append('assistant', text, core.timers.now()),
        sleep: (ms) =>
          new Promise<void>((resolve) => {
            const h = core.timers.setTimeout(resolve, ms);
            abort.signal.addEventListener('abort', () => {
              core.timers.clearTimeout(h);
              resolve();
            });
          }),
      });
    }
    s.turn = null;
    s.activity = undefined;
    // E10: an agent that died while a card waited leaves nobody to act on it: it closes.
    core.pending.dropSession(s.sessionId);
    // E11: the agent can take no more turns in this session: it ended, as a failure.
    if (outcome.close) endSession(s, 'failed');
    // E4: a stop the human asked for is not a failure of the session: it waits for the next
    // message, and its turn.final says why it ended.
    const interrupted = abort.signal.reason === INTERRUPTED_FROM_PHONE;
    // E11.7: a turn the machine's own stop cut short did not fail; its turn.final says so.
    const shutDown = !outcome.ok && !interrupted && stopping;
    setState(s, outcome.ok ? 'done' : interrupted ? 'idle' : 'error');
    const summary = clampSummary(outcome.summary);
    const reason = interrupted
      ? ({ reason: 'interrupted' } as const)
      : shutDown
        ? ({ reason: 'machine-stopped' } as const)
        : outcome.placeholder
          ? ({ reason: 'no-assistant-text' } as const)
          : {};
    core.send({
      v: 1,
      type: 'turn.final',
      ts: core.timers.now(),
      sessionId: s.sessionId,
      ok: outcome.ok,
      summary,
      ...reason,
    });
    if (!outcome.ok && !interrupted && !shutDown) {
      core.send({
        v: 1,
        type: 'error',
        ts: core.timers.now(),
        message: summary,
        context: 'turn',
        sessionId: s.sessionId,
      });
    }
    const next = s.queued.shift();
    if (next !== undefined && s.live) start(s, next);
  }

  /** E11: no more messages from now on, and why (stored: a restart keeps it ended). */
  function endSession(s: SessionRecord, why: SessionEndReason): void {
    s.live = false;
    s.ended ??= why;
    core.sessions.save(s);
  }

  const running = new Set<Promise<void>>();
  let stopping = false;

  function start(s: SessionRecord, prompt: string): void {
    if (stopping) return;
    const p: Promise<void> = run(s, prompt).catch((e: unknown) => {
      core.log(
        'error',
        'turn-crashed',
        `session ${s.sessionId.slice(0, 8)}: ${(e as Error).message}`,
      );
      s.turn = null;
      s.activity = undefined;
      setState(s, 'error');
      core.send({
        v: 1,
        type: 'error',
        ts: core.timers.now(),
        message: 'the agent crashed',
        context: 'turn',
        sessionId: s.sessionId,
      });
    });
    running.add(p);
    void p.finally(() => running.delete(p));
  }

  return {
    start,
    /**
     * Shutdown: every running turn is stopped (its tools' process groups end, its open asks are
     * closed by the caller) and given up to `graceMs` to write its last state; none starts again.
     */
    async stopAll(why: string, graceMs: number): Promise<void> {
      stopping = true;
      for (const s of core.sessions.list()) {
        s.queued.length = 0;
        s.turn?.abort(why);
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((r) => (timer = setTimeout(r, graceMs))),
      ]);
      clearTimeout(timer);
      // E10: no agent process outlives the machine (each close ends its process tree).
      await Promise.allSettled(core.sessions.list().map((s) => s.agentSession?.close()));
    },
    /** session.message: a new turn now, or after the running one ends. */
    steer(s: SessionRecord, text: string): void {
      if (s.turn !== null) {
        s.queued.push(text);
        s.lastActivity = core.timers.now();
        core.scheduler.stateChanged(s.sessionId);
      } else {
        start(s, text);
      }
    },
    /**
     * E4: stops the running turn — its tool's whole process group ends (local host: TERM, a
     * grace, KILL; device host: the executor's cancel), its open asks close (`superseded` /
     * `cancelled`), messages queued behind it are dropped — and the turn ends with
     * `turn.final{ok:false, reason:'interrupted'}`. False when no turn is running.
     */
    interrupt(s: SessionRecord): boolean {
      if (s.turn === null) return false;
      s.queued.length = 0;
      s.turn.abort(INTERRUPTED_FROM_PHONE);
      core.pending.dropSession(s.sessionId);
      return true;
    },
    /** No longer held by the machine: running work stops, open asks close, its rules end. */
    dispose(s: SessionRecord): void {
      endSession(s, 'stopped');
      s.queued.length = 0;
      s.turn?.abort('the session was closed');
      void s.agentSession?.close();
      s.agentSession = null;
      core.pending.dropSession(s.sessionId);
      core.scheduler.stateChanged(s.sessionId);
      if (core.rules.endSession(s.sessionId)) core.rulesChanged();
    },
  };
}
