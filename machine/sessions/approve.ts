import type { ApprovalAsk } from '../approvals/approval-offer.ts';
import { approvalOffer, editedRisk, type ApprovalOffer } from '../approvals/approval-offer.ts';
import type { ApprovalAnswer } from '../agent/agent.ts';
import type { Core } from '../core.ts';
import { rootOf } from '../dispatch/cwd-guard.ts';
import { clampApprovalTitle, clampDetail } from '../wire/outbound.ts';
import type { ApprovalOutcome } from '../approvals/pending.ts';
import type { Refusal } from '../agent/agent.ts';
import { markLast } from './steps.ts';
import type { SessionRecord } from './sessions.ts';

// One agent's approval request, the same for a dispatched turn (turns.ts) and a session started
// at the desk (hooks/desk-sessions.ts): E2 rules are applied first (a match is allowed without
// asking and the trail says so), then the card is opened; E3's edit is recorded in the
// transcript with both lines. Only a human's allow, or a rule the human made, ever allows.

/** Why an approval that was not allowed did not run its tool (U5). */
export function refusalOf(o: ApprovalOutcome): ApprovalAnswer {
  // E3: what the human allowed is the edited line when there is one; it runs instead.
  if (o.allowed)
    return o.edited !== undefined ? { allowed: true, edited: o.edited } : { allowed: true };
  const why: Refusal =
    o.resolution === 'expired' ? 'expired' : o.resolution === 'superseded' ? 'cancelled' : 'denied';
  // E11: the owner's words with a deny reach the agent as the denial's text.
  return o.message !== undefined && why === 'denied'
    ? { allowed: false, why, message: o.message }
    : { allowed: false, why };
}

export type ApproveHooks = {
  /** The card is open (the approval's id), e.g. to close it when the terminal answers first. */
  opened?(approvalId: string): void;
  /** The answer came (the session's state goes back to what it was doing). */
  answered(): void;
};

export function makeApprove(core: Core) {
  const setState = (s: SessionRecord, state: SessionRecord['state']) => {
    s.state = state;
    s.lastActivity = core.timers.now();
    core.scheduler.stateChanged(s.sessionId);
  };

  const roomForRule = (s: SessionRecord, offer: ApprovalOffer): boolean =>
    offer.rule!.scopes.every((scope) =>
      core.rules.hasRoom({
        tool: offer.tool,
        key: offer.rule!.key,
        scope,
        sessionId: s.sessionId,
        root: s.root ?? rootOf(s.cwd, core.roots),
      }),
    );

  /** E2: a live rule the human made allows this request without asking; the trail says so. */
  function allowedByRule(s: SessionRecord, offer: ApprovalOffer): ApprovalAnswer | null {
    if (offer.rule === undefined) return null;
    const rule = core.rules.match({
      tool: offer.tool,
      key: offer.rule.key,
      sessionId: s.sessionId,
      root: s.root ?? rootOf(s.cwd, core.roots),
    });
    if (rule === undefined || !core.rules.use(rule.ruleId)) return null;
    const said = `allowed by rule ${rule.key}`;
    s.transcript.append(
      'assistant',
      `${said[0]!.toUpperCase()}${said.slice(1)}.`,
      core.timers.now(),
    );
    if (s.activity !== undefined) s.trail = markLast(s.trail, s.activity, said);
    core.scheduler.stateChanged(s.sessionId);
    core.rulesChanged();
    return { allowed: true };
  }

  return async function approve(
    s: SessionRecord,
    ask: ApprovalAsk,
    hooks: ApproveHooks,
    cleared?: AbortSignal,
  ): Promise<ApprovalAnswer> {
    const context = {
      cwd: s.cwd,
      access: s.access,
      root: s.root ?? rootOf(s.cwd, core.roots),
    };
    const offer = approvalOffer(ask, context);
    const byRule = allowedByRule(s, offer);
    if (byRule !== null) return byRule;
    // E2: a full list (MAX_RULES, or one more would not fit a frame) offers no scopes.
    if (offer.rule !== undefined && !roomForRule(s, offer))
      offer.rule = { ...offer.rule, scopes: [] };
    const { approval, outcome: decided } = core.pending.openApproval(
      s.sessionId,
      clampApprovalTitle(ask.title),
      clampDetail(ask.detail),
      offer,
    );
    setState(s, 'awaiting_approval');
    hooks.opened?.(approval.approvalId);
    const withdraw = () => core.pending.withdrawApproval(approval.approvalId);
    if (cleared?.aborted) withdraw();
    else cleared?.addEventListener('abort', withdraw, { once: true });
    const o = await decided;
    cleared?.removeEventListener('abort', withdraw);
    hooks.answered();
    if (o.allowed && o.edited !== undefined) {
      // E3: the transcript keeps both, so nobody wonders what actually ran; E11: and says
      // when the edit is risky although the request as asked was not.
      const risk = approval.risk === undefined ? editedRisk(o.edited, context) : null;
      s.transcript.append(
        'assistant',
        `Edited on the phone before it was allowed:\nasked: ${approval.editable?.value ?? ''}\nruns:  ${o.edited}${risk !== null ? `\n(the edit is risky: ${risk.reason})` : ''}`,
        core.timers.now(),
      );
    }
    return refusalOf(o);
  };
}
