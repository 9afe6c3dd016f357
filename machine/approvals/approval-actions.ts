import {
  approvalContentHash,
  approvalRespondRefusal,
  decisionChallengeText,
  type ApprovalRefusal,
  type ApprovalRespond,
  type MachineMessage,
  type ReasonCode,
  type RuleRevoke,
  type SessionInterrupt,
} from '../../protocol/index.ts';
import { editedRisk } from './approval-offer.ts';
import type { Core } from '../core.ts';
import { rootOf } from '../dispatch/cwd-guard.ts';
import type { Turns } from '../sessions/turns.ts';

// The phone actions of E2 (scopes on approval.respond, rules.get, rule.revoke), E3 (edited on
// approval.respond) and E4 (session.interrupt). phone-actions.ts runs the checks every action
// shares (D11 clock, idempotency, H3 replay) before these; what they return is the action's
// result, replayed for a duplicate requestId.

type ErrorFields = { context?: string; sessionId?: string; reason?: ReasonCode };
export type ErrorMaker = (message: string, extra: ErrorFields) => MachineMessage;

const REFUSAL_TEXT: Record<ApprovalRefusal, string> = {
  'scope-not-offered':
    'that scope was not offered for this approval (a deny or an edit is once only)',
  'not-editable':
    'this approval cannot be changed before allowing (only an allow of an editable one)',
  'presence-required': 'this approval needs verified presence',
};

export function makeApprovalActions(core: Core, turns: Turns, errorMsg: ErrorMaker) {
  const now = () => core.timers.now();
  const rulesMessage = (requestId?: string): MachineMessage => ({
    v: 1,
    type: 'rules',
    ts: now(),
    ...(requestId !== undefined ? { requestId } : {}),
    rules: core.rules.list(),
  });

  return {
    rulesMessage,
    /** Refusals leave the approval pending: the phone may answer again with a new requestId. */
    respond(m: ApprovalRespond, sender?: string): MachineMessage[] {
      const open = core.pending.approval(m.approvalId);
      const notPending = () => [
        errorMsg(`approval ${m.approvalId} is not pending`, {
          context: m.approvalId,
          reason: 'not-pending',
        }),
      ];
      if (open === undefined) return notPending();
      const refused = approvalRespondRefusal(open, m);
      if (refused !== null) {
        return [
          errorMsg(REFUSAL_TEXT[refused], {
            context: m.approvalId,
            sessionId: open.sessionId,
            reason: refused,
          }),
        ];
      }
      // E3 + E11: an edited command is classed again in its session; a risky edit needs presence
      // under `risky` even when the request as asked did not.
      const session = core.sessions.get(open.sessionId);
      // A session the machine no longer holds cannot say what is safe: its edit counts as risky.
      const risk =
        m.decision !== 'allow' || m.edited === undefined
          ? null
          : session === undefined
            ? { reason: 'other' }
            : editedRisk(m.edited, {
                cwd: session.cwd,
                access: session.access,
                root: session.root ?? rootOf(session.cwd, core.roots),
              });
      // E7: only an allow of a request that needs presence; a deny never does.
      if (m.decision === 'allow' && core.presence.allowNeedsPresence(open, risk)) {
        // E9: the challenge binds the room and what this machine sent, not what a card showed;
        // in identity mode the credential must be the (proven) sender's.
        const text = decisionChallengeText({
          roomId: core.roomId(),
          approvalId: m.approvalId,
          decision: m.decision,
          requestId: m.requestId,
          ts: m.ts,
          content: approvalContentHash(open),
          ...(m.scope !== undefined ? { scope: m.scope } : {}),
          ...(m.edited !== undefined ? { edited: m.edited } : {}),
        });
        const presence = core.presence.check(m.presence, text, sender);
        if (presence !== null) {
          const why =
            risk !== null && open.presence !== true ? ` (the edit is risky: ${risk.reason})` : '';
          return [
            errorMsg(`${presence.message}${why}`, {
              context: m.approvalId,
              sessionId: open.sessionId,
              reason: presence.reason,
            }),
          ];
        }
      }
      let ruleAdded = false;
      if (m.scope === 'session' || m.scope === 'always') {
        const s = session;
        const added = core.rules.add({
          tool: open.tool,
          key: open.rule!.key,
          scope: m.scope,
          sessionId: open.sessionId,
          root: s === undefined ? undefined : (s.root ?? rootOf(s.cwd, core.roots)),
        });
        if (!added.ok) {
          return [
            errorMsg(`not allowed: ${added.message}; allow it once instead`, {
              context: m.approvalId,
              sessionId: open.sessionId,
            }),
          ];
        }
        ruleAdded = added.created;
      }
      if (!core.pending.decideFromPhone(m.approvalId, m.decision === 'allow', m.edited, m.message))
        return notPending();
      // After the approval.closed this returns (sent synchronously by the caller).
      if (ruleAdded) queueMicrotask(() => core.rulesChanged());
      const by = core.decidedBy(m.phoneId);
      return [
        {
          v: 1,
          type: 'approval.closed',
          ts: now(),
          approvalId: m.approvalId,
          resolution: m.decision,
          ...(m.edited !== undefined ? { edited: true as const } : {}),
          ...(by ? { by } : {}),
        },
      ];
    },
    revoke(m: RuleRevoke): MachineMessage[] {
      // An unknown rule (or one revoked already) changes nothing: revoking twice = once, and the
      // list that answers it lets the phone drop a rule it still shows.
      if (!core.rules.list().some((r) => r.ruleId === m.ruleId)) return [rulesMessage(m.requestId)];
      if (!core.rules.revoke(m.ruleId)) {
        return [
          errorMsg('the machine could not forget the rule; it still stands', {
            context: 'rule.revoke',
          }),
        ];
      }
      core.log('info', 'rule-revoked', `rule ${m.ruleId.slice(0, 8)} revoked from the phone`);
      return [rulesMessage(m.requestId)];
    },
    /** The confirmation is the turn's own turn.final (reason `interrupted`) and session.update. */
    interrupt(m: SessionInterrupt): MachineMessage[] {
      const s = core.sessions.get(m.sessionId);
      if (s === undefined || !turns.interrupt(s)) {
        return [
          errorMsg('this session is not running', {
            context: 'session.interrupt',
            sessionId: m.sessionId,
            reason: 'not-running',
          }),
        ];
      }
      core.log('info', 'interrupted', `session ${m.sessionId.slice(0, 8)} stopped from the phone`);
      return [];
    },
  };
}
