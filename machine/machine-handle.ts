import { type MachineEvents, type MachineHandle } from './machine-types.ts';
import type { Core } from './core.ts';
import { clampApprovalTitle, clampDetail, clampItems } from './wire/outbound.ts';
import type { Outbox } from './wire/outbox.ts';
import { checkAnswers } from './approvals/pending.ts';
import type { PhoneIdentity } from './phones/phone-identity.ts';
import { toEntry, type Phones } from './phones/phones.ts';
import type { PushReceipts } from './links/push-receipts.ts';
import type { Rooms } from './links/rooms.ts';
import { toWireSession } from './sessions/sessions.ts';
import type { Turns } from './sessions/turns.ts';

// The in-process machine's handle (machine-types.ts): what the desk, scripts and tests use.
// createMachine (machine.ts) wires the parts; this only reads and drives them.

export function makeMachineHandle(deps: {
  core: Core;
  turns: Turns;
  rooms: Rooms;
  outbox: Outbox;
  receipts: PushReceipts;
  phones: Phones;
  identity: PhoneIdentity;
  listeners: Set<MachineEvents>;
  instance: string;
  hookSocket: string | null;
  rePairNeeded(): boolean;
  close(): Promise<void>;
}): MachineHandle {
  const { core, turns, rooms, outbox, receipts, phones, identity, listeners } = deps;
  const { sessions, pending, rules, timers, scheduler } = core;
  let localSession: string | null = null;
  const sessionFor = (id: string | undefined): string => {
    if (id !== undefined) return id;
    if (localSession === null) {
      localSession = sessions.create({
        prompt: 'Scripted events',
        cwd: core.roots[0] ?? process.cwd(),
        dispatched: false,
        access: 'standard',
        now: timers.now(),
      }).sessionId;
      scheduler.stateChanged(localSession);
    }
    return localSession;
  };

  const handle: MachineHandle = {
    get pairing() {
      return rooms.current().pairing;
    },
    instance: deps.instance,
    hookSocket: deps.hookSocket,
    allowedRoots: core.roots,
    status() {
      const r = rooms.current().link.state();
      return {
        connected: r.connected,
        phoneOnline: outbox.phoneOnline(),
        rePairNeeded: deps.rePairNeeded(),
        errorState: r.errorState,
        consecutiveFailures: r.consecutiveFailures,
        ...(receipts.current() ? { pushReceipt: receipts.current()! } : {}),
      };
    },
    sessions: () => sessions.list().map(toWireSession),
    transcript: (id) => sessions.get(id)?.transcript.all() ?? [],
    pendingApprovals: () => pending.openApprovals(),
    pendingQuestions: () => pending.openQuestions(),
    answerApproval(id, decision) {
      return pending.decideLocally(id, decision === 'allow')
        ? { ok: true }
        : { ok: false, code: 'not-pending', message: `approval ${id} is not pending` };
    },
    answerQuestion(id, answers) {
      const q = pending.question(id);
      if (q === undefined)
        return { ok: false, code: 'not-pending', message: `question ${id} is not pending` };
      const check = checkAnswers(q.items, answers);
      if (!check.ok) return { ok: false, code: 'bad-answer', message: check.message };
      pending.answer(id, answers, 'local');
      return { ok: true };
    },
    startSession(prompt, cwd) {
      const s = sessions.create({
        prompt,
        cwd,
        dispatched: false,
        access: 'standard',
        now: timers.now(),
        ...(core.agents.default !== undefined ? { agent: core.agents.default } : {}),
      });
      turns.start(s, prompt);
      return s.sessionId;
    },
    raiseApproval(fields) {
      // Scripted events name no tool a rule could be made for: once only, never editable, and
      // so risky (E11 `other`: the machine cannot say what they would do).
      const { approval, outcome } = pending.openApproval(
        sessionFor(fields.sessionId),
        clampApprovalTitle(fields.title),
        clampDetail(fields.detail),
        { tool: fields.tool ?? 'script', risk: { reason: 'other' } },
      );
      return { approvalId: approval.approvalId, outcome: outcome.then((o) => o.resolution) };
    },
    raiseQuestion(fields) {
      const { question, outcome } = pending.openQuestion(
        sessionFor(fields.sessionId),
        clampItems(fields.items),
      );
      return { questionId: question.questionId, outcome: outcome.then((o) => o.resolution) };
    },
    rules: () => rules.list(),
    revokeRule(id) {
      if (!rules.list().some((r) => r.ruleId === id))
        return { ok: false, code: 'no-rule', message: `no rule ${id}` };
      if (!rules.revoke(id))
        return {
          ok: false,
          code: 'no-rule',
          message: 'could not forget the rule; it still stands',
        };
      core.log('info', 'rule-revoked', `rule ${id.slice(0, 8)} revoked at the desk`);
      core.rulesChanged();
      return { ok: true };
    },
    phones: () => phones.list().map(toEntry),
    revokePhone: (id) => identity.revoke(id),
    approvePhone: (id) => identity.approve(id),
    forgetPhone: (id) => identity.forget(id),
    disposeSession(id) {
      const s = sessions.get(id);
      if (s === undefined) return { ok: false, code: 'no-session', message: `no session ${id}` };
      turns.dispose(s);
      return { ok: true };
    },
    connected(timeoutMs = 10_000) {
      if (rooms.current().link.state().connected) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          off();
          reject(new Error('the machine did not connect to the relay in time'));
        }, timeoutMs);
        const off = handle.on({
          connected() {
            clearTimeout(t);
            off();
            resolve();
          },
        });
      });
    },
    on(events) {
      listeners.add(events);
      return () => listeners.delete(events);
    },
    close: deps.close,
  };
  return handle;
}
