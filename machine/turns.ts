import type { QuestionItem } from '../protocol/index.ts';
import { demoSteps, parseScript, type ScriptStep } from './agent/script.ts';
import {
  runTurn,
  type AgentAnswer,
  type AgentQuestion,
  type ApprovalAnswer,
  type Refusal,
} from './agent/runner.ts';
import { clampApprovalTitle, clampDetail, clampItems, clampSummary } from './outbound.ts';
import type { Core } from './core.ts';
import type { ApprovalOutcome } from './pending.ts';
import { addStep, EMPTY_TRAIL, markLastRefused } from './steps.ts';
import { reportingHost } from './tool-errors.ts';
import type { SessionRecord } from './sessions.ts';

// One turn of one session: the prompt becomes a user transcript entry, the scripted agent runs
// (its approvals and questions go to the pending registry, its tools to the ToolHost), and the
// turn ends with `turn.final` (plus `error` when it failed). Steps are cleared when a new turn
// starts, not when it ends.

export type Turns = ReturnType<typeof makeTurns>;

/** Why an approval that was not allowed did not run its tool (U5). */
export function refusalOf(o: ApprovalOutcome): ApprovalAnswer {
  if (o.allowed) return { allowed: true };
  const why: Refusal =
    o.resolution === 'expired' ? 'expired' : o.resolution === 'superseded' ? 'cancelled' : 'denied';
  return { allowed: false, why };
}

async function stepsFor(
  core: Core,
  session: SessionRecord,
  prompt: string,
): Promise<ScriptStep[] | string> {
  const parsed = parseScript(prompt);
  if (!parsed.ok) return parsed.message;
  if (parsed.script) return parsed.steps;
  const listing = await core.host().listDir(session.cwd);
  const files = listing.ok ? listing.value.filter((e) => e.kind === 'file').map((e) => e.name) : [];
  const first = files.find((f) => /^readme/i.test(f)) ?? files[0] ?? null;
  return demoSteps(first);
}

export function makeTurns(core: Core) {
  const setState = (s: SessionRecord, state: SessionRecord['state']) => {
    s.state = state;
    s.lastActivity = core.timers.now();
    core.scheduler.stateChanged(s.sessionId);
  };

  async function run(s: SessionRecord, prompt: string): Promise<void> {
    const abort = new AbortController();
    s.turn = abort;
    s.trail = EMPTY_TRAIL;
    s.activity = undefined;
    s.transcript.append('user', prompt, core.timers.now());
    setState(s, 'running');
    let outcome;
    const steps = await stepsFor(core, s, prompt);
    if (typeof steps === 'string') {
      s.transcript.append('assistant', steps, core.timers.now());
      outcome = { ok: false, summary: steps, placeholder: false, close: false };
    } else {
      outcome = await runTurn(steps, {
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
        approve: async (title, detail) => {
          const { outcome: decided } = core.pending.openApproval(
            s.sessionId,
            clampApprovalTitle(title),
            clampDetail(detail),
          );
          setState(s, 'awaiting_approval');
          const o = await decided;
          if (s.turn === abort) setState(s, 'running');
          return refusalOf(o);
        },
        ask: async (q: AgentQuestion): Promise<AgentAnswer> => {
          const item: QuestionItem = {
            id: 'q1',
            prompt: q.prompt,
            options: q.options.map((label, i) => ({ id: String(i + 1), label })),
            multiSelect: q.multiSelect,
            allowFreeText: q.allowFreeText,
          };
          const { outcome: answered } = core.pending.openQuestion(s.sessionId, clampItems([item]));
          setState(s, 'awaiting_approval');
          const o = await answered;
          if (s.turn === abort) setState(s, 'running');
          if (!('answers' in o)) return { ok: false, why: o.resolution };
          const a = o.answers.find((x) => x.itemId === item.id);
          const labels = (a?.optionIds ?? []).map(
            (id) => item.options.find((opt) => opt.id === id)?.label ?? id,
          );
          return a?.freeText !== undefined
            ? { ok: true, labels, freeText: a.freeText }
            : { ok: true, labels };
        },
        toolStarted: (tool) => {
          s.trail = addStep(s.trail, tool);
          s.activity = tool;
          s.lastActivity = core.timers.now();
          core.scheduler.activityChanged(s.sessionId);
        },
        toolFinished: (refused) => {
          if (refused !== undefined && s.activity !== undefined)
            s.trail = markLastRefused(s.trail, s.activity, refused);
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
    if (outcome.close) s.live = false;
    setState(s, outcome.ok ? 'done' : 'error');
    const summary = clampSummary(outcome.summary);
    core.send(
      outcome.placeholder
        ? {
            v: 1,
            type: 'turn.final',
            ts: core.timers.now(),
            sessionId: s.sessionId,
            ok: outcome.ok,
            summary,
            reason: 'no-assistant-text',
          }
        : {
            v: 1,
            type: 'turn.final',
            ts: core.timers.now(),
            sessionId: s.sessionId,
            ok: outcome.ok,
            summary,
          },
    );
    if (!outcome.ok) {
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
    /** No longer held by the machine: running work stops, open asks close. */
    dispose(s: SessionRecord): void {
      s.live = false;
      s.queued.length = 0;
      s.turn?.abort('the session was closed');
      core.pending.dropSession(s.sessionId);
      core.scheduler.stateChanged(s.sessionId);
    },
  };
}
