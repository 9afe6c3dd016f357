import { dispatchNeedsPresence, type Decision, type QuestionAnswer } from '../../protocol/index.ts';
import {
  CONTENT_CONFLICT,
  NOT_OFFERED,
  type ActResult,
  type DispatchInput,
} from './client-types.ts';
import type { Decisions } from './decisions.ts';
import {
  denyMessageExtra,
  extensionsOf,
  respondExtras,
  type ApprovalChoice,
} from './extensions.ts';
import type { Identity } from './identity.ts';
import { phonesOffered } from './phones.ts';
import type { ViewStore } from './view-store.ts';
import type { TranscriptAsk } from './view-types.ts';

// What the owner can do to a machine, as the screens call it: each action is checked against
// what the machine announced (EC), then handed to the decisions (kept and re-sent) or sent as a
// read.
export function makeActions(options: {
  views: ViewStore;
  decisions: Decisions;
  identity: Identity;
  asks: Map<string, TranscriptAsk>;
  uuid: () => string;
}) {
  const { views, decisions, identity, asks, uuid } = options;
  const { act, send } = decisions;
  /**
   * E6/E9: phone.revoke / phone.approve — read-like (not kept in the outbox: the `phones` list
   * the machine sends afterwards shows the outcome), signed with presence naming the action and
   * the target when the machine's policy asks for presence. False when not sent.
   */
  const authority = async (
    roomId: string,
    type: 'phone.revoke' | 'phone.approve',
    phoneId: string,
  ): Promise<boolean> => {
    const view = views.get(roomId);
    if (!phonesOffered(view) || decisions.blocked(roomId) !== null) return false;
    const requestId = uuid();
    const ts = decisions.stamp(roomId);
    let presence = null;
    if (view?.status?.capabilities?.presence !== undefined) {
      try {
        presence = await identity.presenceFor({ roomId, action: type, target: phoneId })(
          requestId,
          ts,
        );
      } catch {
        return false;
      }
    }
    const fields = { type, requestId, ts, phoneId, ...(presence ? { presence } : {}) };
    return send(roomId, fields) !== null;
  };
  return {
    /**
     * E2/E3: `choice` (a remembered scope, an edited command) is sent only when the machine
     * announced it and would accept it for this request; otherwise nothing is sent (EC).
     */
    respondApproval(
      roomId: string,
      approvalId: string,
      decision: Decision,
      choice: ApprovalChoice = {},
    ): Promise<ActResult> {
      const view = views.get(roomId);
      const approval = view?.approvals[approvalId];
      let extras: ApprovalChoice = {};
      if (choice.scope !== undefined || choice.edited !== undefined) {
        if (!view || !approval) return Promise.resolve({ ok: false, code: NOT_OFFERED });
        const checked = respondExtras(view, approval, decision, choice);
        if (!checked.ok) return Promise.resolve(checked);
        extras = checked.extras;
      }
      // E9: an id the machine (or a copy of the code) re-sent with other content: Allow is
      // refused — the owner could not know which content the machine would run.
      if (decision === 'allow' && view?.conflicts?.[approvalId]) {
        return Promise.resolve({ ok: false, code: CONTENT_CONFLICT });
      }
      // E11: what the owner tells the agent with a deny.
      const said = denyMessageExtra(decision, choice.message);
      if (!said.ok) return Promise.resolve(said);
      // E7: a deny never needs presence, so it never prompts.
      const needsPresence = decision === 'allow' && approval?.presence === true;
      return act(
        roomId,
        'approval',
        () => approvalId,
        { type: 'approval.respond', approvalId, decision, ...extras, ...said.extras },
        needsPresence && approval
          ? identity.presenceFor({ roomId, approvalId, decision, request: approval, ...extras })
          : undefined,
      );
    },
    /** E4: only to a machine that announced `interrupt`. */
    interrupt(roomId: string, sessionId: string): Promise<ActResult> {
      const view = views.get(roomId);
      if (!view || !extensionsOf(view).interrupt)
        return Promise.resolve({ ok: false, code: NOT_OFFERED });
      return act(roomId, 'interrupt', () => sessionId, { type: 'session.interrupt', sessionId });
    },
    /** E2: asks for the machine's rules (a read: not kept in the outbox); null when not sent. */
    getRules(roomId: string): string | null {
      const view = views.get(roomId);
      if (!view || !extensionsOf(view).approvalRules) return null;
      const requestId = uuid();
      return send(roomId, { type: 'rules.get', requestId }) ? requestId : null;
    },
    /** E2: only to a machine that announced `approvalRules`. */
    revokeRule(roomId: string, ruleId: string): Promise<ActResult> {
      const view = views.get(roomId);
      if (!view || !extensionsOf(view).approvalRules)
        return Promise.resolve({ ok: false, code: NOT_OFFERED });
      return act(roomId, 'rule', () => ruleId, { type: 'rule.revoke', ruleId });
    },
    respondQuestion: (roomId: string, questionId: string, answers: QuestionAnswer[]) =>
      act(roomId, 'question', () => questionId, { type: 'question.respond', questionId, answers }),
    dispatch: (roomId: string, input: DispatchInput) =>
      act(
        roomId,
        'dispatch',
        (id) => id,
        {
          type: 'dispatch.request',
          prompt: input.prompt,
          worktree: input.worktree,
          ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
          ...(input.access === 'full' ? { access: 'full' } : {}),
          ...(input.agent !== undefined ? { agent: input.agent } : {}),
        },
        dispatchNeedsPresence(views.get(roomId)?.status?.capabilities?.presence, input.access)
          ? identity.presenceFor({
              roomId,
              dispatch: {
                prompt: input.prompt,
                worktree: input.worktree,
                ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
                access: 'full',
              },
            })
          : undefined,
      ),
    /**
     * E6: asks the machine to revoke a phone (a read-like request, not kept in the outbox: the
     * `phones` list the machine sends afterwards shows the outcome). False when not sent.
     */
    revokePhone: (roomId: string, phoneId: string): Promise<boolean> =>
      authority(roomId, 'phone.revoke', phoneId),
    /** E9: lets a waiting phone in (the machine then lists it approved). False when not sent. */
    approvePhone: (roomId: string, phoneId: string): Promise<boolean> =>
      authority(roomId, 'phone.approve', phoneId),
    sendMessage: (roomId: string, sessionId: string, text: string) =>
      act(roomId, 'message', () => sessionId, { type: 'session.message', sessionId, text }),
    getTranscript(roomId: string, sessionId: string, before?: number): string | null {
      const requestId = uuid();
      asks.set(requestId, before === undefined ? { sessionId } : { sessionId, before });
      const sent = send(roomId, {
        type: 'transcript.get',
        requestId,
        sessionId,
        ...(before !== undefined ? { before } : {}),
      });
      if (!sent) asks.delete(requestId);
      return sent ? requestId : null;
    },
    refresh: (roomId: string) => send(roomId, { type: 'sessions.get' }) !== null,
  };
}
