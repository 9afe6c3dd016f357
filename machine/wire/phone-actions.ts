import {
  isStaleRequest,
  makeIdempotencyCache,
  MAX_MESSAGE_BYTES,
  MAX_MESSAGE_CHARS,
  textLimitReason,
  type MachineMessage,
  type PhoneMessage,
  type ReasonCode,
  type SessionEndReason,
} from '../../protocol/index.ts';
import type { Core } from '../core.ts';
import { checkAnswers } from '../approvals/pending.ts';
import type { SeenRequests } from './seen-requests.ts';
import type { Turns } from '../sessions/turns.ts';
import { runDispatch } from '../dispatch/dispatch.ts';
import { makeApprovalActions } from '../approvals/approval-actions.ts';
import type { PhoneIdentity } from '../phones/phone-identity.ts';
import type { Phones } from '../phones/phones.ts';
import type { IdentityGate } from '../phones/identity-gate.ts';

type Action = Exclude<PhoneMessage, { type: 'sessions.get' | 'phone.sealed' }>;

const NOT_HELD_WORDS = 'this session is no longer held by the machine; start a new one';
/** E11: why a reply cannot land, in the machine's words (the phone renders `ended` itself). */
const ENDED_WORDS: Record<SessionEndReason, string> = {
  'machine-restarted':
    'this session ended when the machine restarted: its agent cannot resume it; continue in a new session',
  stopped: 'this session was stopped and takes no more messages; continue in a new session',
  failed: 'this session failed and takes no more messages; continue in a new session',
  finished: 'this session has finished and takes no more messages; continue in a new session',
};

// Every phone → machine message (D12: only these types are acted on). Actions with a requestId
// are refused when their ts is more than 5 minutes from our clock (D11), and answered from the
// idempotency cache when seen before: the original result is replayed, nothing runs twice. An id
// this process no longer holds a result for — evicted, or seen before a restart (H3: the store
// remembers every id for twice the D11 window) — is refused, never run again.

export type PhoneActionsDeps = {
  core: Core;
  turns: Turns;
  roots: readonly string[];
  allowFullAccess: boolean;
  seen: SeenRequests;
  /** E6: phone.register / phone.revoke, and who a phoneId is. */
  identity: PhoneIdentity;
  phones: Phones;
  /** E9: opens phone.sealed and proves its sender. */
  gate: IdentityGate;
  /** session.snapshot, then re-remind every open approval and question (D8). */
  sendSnapshotAndRemind(): void;
};

export function makePhoneActions(deps: PhoneActionsDeps) {
  const { core, turns } = deps;
  const now = () => core.timers.now();
  const cache = makeIdempotencyCache<MachineMessage[]>({ now });

  /** A refused action: a dispatch gets its dispatch.result (the phone waits for it), others an error. */
  const refusal = (m: Action, text: string, reason?: ReasonCode): MachineMessage =>
    m.type === 'dispatch.request'
      ? {
          v: 1,
          type: 'dispatch.result',
          ts: now(),
          requestId: m.requestId,
          ok: false,
          error: text,
          ...(reason ? { reason } : {}),
        }
      : errorMsg(text, {
          context: m.type,
          ...(reason ? { reason } : {}),
          ...('sessionId' in m ? { sessionId: m.sessionId } : {}),
        });

  const errorMsg = (
    message: string,
    extra: { context?: string; sessionId?: string; reason?: ReasonCode },
  ): MachineMessage => ({
    v: 1,
    type: 'error',
    ts: now(),
    message,
    ...extra,
  });

  const approvals = makeApprovalActions(core, turns, errorMsg);

  // Synchronous where it can be: a decision's approval.closed / question.closed goes out before
  // the agent, woken by the decision, sends its next session.update.
  function act(
    m: Action,
    sender: string | undefined,
  ): MachineMessage[] | Promise<MachineMessage[]> {
    switch (m.type) {
      case 'phone.register':
        return deps.identity.register(m, sender);
      case 'phone.revoke':
        return deps.identity.revokeAction(m, sender);
      case 'phone.approve':
        return deps.identity.approveAction(m, sender);
      case 'approval.respond':
        return approvals.respond(m, sender);
      case 'rules.get':
        return [approvals.rulesMessage(m.requestId)];
      case 'rule.revoke':
        return approvals.revoke(m);
      case 'session.interrupt':
        return approvals.interrupt(m);
      case 'question.respond': {
        const open = core.pending.question(m.questionId);
        if (open === undefined) {
          return [
            errorMsg(`question ${m.questionId} is not pending`, {
              context: m.questionId,
              reason: 'not-pending',
            }),
          ];
        }
        const check = checkAnswers(open.items, m.answers);
        if (!check.ok)
          return [
            errorMsg(`answer refused: ${check.message}`, {
              context: m.questionId,
              sessionId: open.sessionId,
            }),
          ];
        core.pending.answer(m.questionId, m.answers, 'phone');
        const by = core.decidedBy(m.phoneId);
        return [
          {
            v: 1,
            type: 'question.closed',
            ts: now(),
            questionId: m.questionId,
            resolution: 'phone',
            ...(by ? { by } : {}),
          },
        ];
      }
      case 'dispatch.request':
        return runDispatch(m, deps).then(
          (r) => [r],
          (e: unknown): MachineMessage[] => {
            core.log('error', 'dispatch-failed', (e as Error).message);
            return [
              {
                v: 1,
                type: 'dispatch.result',
                ts: now(),
                requestId: m.requestId,
                ok: false,
                error: `dispatch failed: ${(e as Error).message}`,
                reason: 'dispatch-failed',
              },
            ];
          },
        );
      case 'transcript.get': {
        const s = core.sessions.get(m.sessionId);
        if (s === undefined) {
          return [
            {
              v: 1,
              type: 'transcript',
              ts: now(),
              requestId: m.requestId,
              sessionId: m.sessionId,
              entries: [],
            },
            errorMsg('no such session on this machine', {
              context: 'transcript.get',
              sessionId: m.sessionId,
            }),
          ];
        }
        const page = s.transcript.page(m.before !== undefined ? { before: m.before } : {});
        return [
          {
            v: 1,
            type: 'transcript',
            ts: now(),
            requestId: m.requestId,
            sessionId: m.sessionId,
            entries: page.entries,
            ...(page.more ? { more: true } : {}),
          },
        ];
      }
      case 'session.message': {
        const s = core.sessions.get(m.sessionId);
        if (s === undefined || !s.live) {
          // E11: said with why it ended (the session's `ended` carries the code); a reply is
          // refused, never started as a fresh conversation the owner did not ask for.
          return [
            errorMsg(s?.ended !== undefined ? ENDED_WORDS[s.ended] : NOT_HELD_WORDS, {
              sessionId: m.sessionId,
              reason: 'no-remote-followup',
            }),
          ];
        }
        const limit = textLimitReason(m.text, 'message');
        if (limit !== null) {
          const what =
            limit === 'message-too-long-chars'
              ? `longer than ${MAX_MESSAGE_CHARS} characters`
              : `larger than ${MAX_MESSAGE_BYTES} bytes`;
          return [errorMsg(`the message is ${what}`, { sessionId: m.sessionId, reason: limit })];
        }
        turns.steer(s, m.text);
        // The confirmation the phone waits for (D10) is this session's update; the scheduler
        // already sent one, so nothing else is replayed but the error cases above.
        return [];
      }
    }
  }

  /** A refusal for any message, sessions.get (which has no requestId) included. */
  const refuse = (
    m: Exclude<PhoneMessage, { type: 'phone.sealed' }>,
    text: string,
    reason: ReasonCode,
  ) =>
    core.send(
      m.type === 'sessions.get'
        ? errorMsg(text, { context: m.type, reason })
        : refusal(m, text, reason),
    );

  const invalid = (
    type: string | undefined,
    requestId: string | undefined,
    message: string,
    reason: ReasonCode | undefined,
    approval?: { approvalId: string; sessionId: string },
  ): void => {
    if (type === 'dispatch.request' && requestId !== undefined) {
      core.send({
        v: 1,
        type: 'dispatch.result',
        ts: now(),
        requestId,
        ok: false,
        error: message,
        ...(reason ? { reason } : {}),
      });
    } else {
      core.send(
        errorMsg(message, {
          ...(approval
            ? { context: approval.approvalId, sessionId: approval.sessionId }
            : type
              ? { context: type }
              : {}),
          ...(reason ? { reason } : {}),
        }),
      );
    }
  };

  /**
   * E9: the message to act on and its proven sender, or null when it was refused (answered
   * here). Before identity mode (no phone approved yet) a plain message is acted on as in E6.
   */
  function identify(
    m: PhoneMessage,
  ): { m: Exclude<PhoneMessage, { type: 'phone.sealed' }>; sender?: string } | null {
    if (m.type !== 'phone.sealed') {
      if (!deps.phones.identityMode()) return { m };
      core.log(
        'warn',
        'identity-required',
        `a plain ${m.type} refused: only sealed messages count`,
      );
      refuse(
        m,
        'this machine accepts only messages its phones seal (E9); pair again',
        'identity-required',
      );
      return null;
    }
    const u = deps.gate.unseal(m);
    if (u.ok)
      return { m: u.message as Exclude<PhoneMessage, { type: 'phone.sealed' }>, sender: u.sender };
    if (u.kind === 'inner') {
      if (u.parsed.ignored) {
        core.log('info', `ignored-${u.parsed.code}`, `ignored a sealed ${u.parsed.type ?? '?'}`);
      } else {
        invalid(u.parsed.type, u.parsed.requestId, u.parsed.message, u.parsed.reason);
      }
      return null;
    }
    invalid(u.type, u.requestId, u.message, 'identity-required');
    return null;
  }

  return {
    async handle(incoming: PhoneMessage): Promise<void> {
      const who = identify(incoming);
      if (who === null) return;
      const { m, sender } = who;
      // E6: an action claiming a revoked phone is refused (its own phone.register says so too).
      // phone.revoke's and phone.approve's phoneId name the target, not the sender.
      const claimedId =
        sender ?? (m.type === 'phone.revoke' || m.type === 'phone.approve' ? undefined : m.phoneId);
      const claimed = claimedId === undefined ? undefined : deps.phones.get(claimedId);
      if (claimed?.revoked && m.type !== 'phone.register') {
        core.log('warn', 'revoked-phone-action', `${m.type} from a revoked phone refused`);
        refuse(m, 'this phone was removed from the machine', 'phone-revoked');
        // E9: a proven revoked phone gets the proof it may delete its pairing with.
        if (sender !== undefined) core.send(deps.identity.removed(claimed));
        return;
      }
      // E9: a pending phone registers (and waits); it acts on nothing until it is approved.
      const pending =
        claimed?.state === 'pending' || (sender === undefined && m.type === 'phone.approve');
      if (sender !== undefined && pending && m.type !== 'phone.register') {
        // A waiting app asks for the snapshot at every join: expected, not worth the desk's
        // attention (U5). An action from a waiting phone is — it may hold a copied code.
        const read =
          m.type === 'sessions.get' || m.type === 'transcript.get' || m.type === 'rules.get';
        core.log(
          read ? 'info' : 'warn',
          'pending-phone-action',
          `${m.type} from a pending phone refused`,
        );
        refuse(m, 'this phone waits for the owner to approve it', 'phone-pending');
        return;
      }
      if (sender === undefined && m.type === 'phone.approve') {
        refuse(m, 'only an approved phone may approve another (E9)', 'identity-required');
        return;
      }
      if (claimed !== undefined) deps.phones.seen(claimed.phoneId);
      if (m.type === 'sessions.get') {
        deps.sendSnapshotAndRemind();
        return;
      }
      if (isStaleRequest(m.ts, now())) {
        core.log(
          'warn',
          'stale-request',
          `${m.type} ${m.requestId.slice(0, 8)} refused: ts is ${Math.round((m.ts - now()) / 1000)} s from our clock`,
        );
        core.send(
          refusal(
            m,
            'request refused: its time is more than 5 minutes from the machine clock',
            'stale-request',
          ),
        );
        return;
      }
      const replay = cache.get(m.requestId);
      if (replay !== undefined) {
        core.log(
          'info',
          'duplicate-request',
          `${m.type} ${m.requestId.slice(0, 8)}: replaying the original result`,
        );
        // Their confirmation was the session's update: send it again.
        if (m.type === 'session.message' || m.type === 'session.interrupt') {
          const s = core.sessions.get(m.sessionId);
          if (s !== undefined && replay.length === 0) core.scheduler.stateChanged(s.sessionId);
        }
        for (const r of replay) core.send(r);
        return;
      }
      if (cache.has(m.requestId) || deps.seen.seen(m.requestId)) {
        core.log(
          'warn',
          'replayed-request',
          `${m.type} ${m.requestId.slice(0, 8)} refused: already handled, result no longer held`,
        );
        core.send(
          refusal(m, 'duplicate request: it was already handled and its result is no longer held'),
        );
        return;
      }
      // Remember before acting (in the store too), so neither a duplicate arriving mid-dispatch
      // nor a replay after a restart runs it twice. What cannot be remembered is not run.
      const recorded = deps.seen.remember(m.requestId, m.type, claimedId);
      if (recorded !== 'recorded') {
        core.send(
          refusal(
            m,
            recorded === 'full'
              ? 'request refused: too many requests in the last 10 minutes'
              : 'request refused: the machine could not record it, so a replay could not be told apart',
          ),
        );
        return;
      }
      const results: MachineMessage[] = [];
      cache.remember(m.requestId, results);
      const out = act(m, sender);
      for (const r of out instanceof Promise ? await out : out) {
        results.push(r);
        core.send(r);
      }
    },
    /** A phone message that failed validation but named its request: answer it visibly. */
    invalid,
  };
}
