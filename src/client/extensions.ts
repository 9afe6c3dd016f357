import {
  approvalRespondRefusal,
  MAX_DENY_MESSAGE_CHARS,
  MAX_EDITABLE_BYTES,
  utf8ByteLength,
  offeredScopes,
  SESSION_STATES,
  type ApprovalRequest,
  type ApprovalScope,
  type Capabilities,
  type Decision,
  type Session,
} from '../../protocol/index.ts';
import type { MachineView } from './machine-view.ts';

// E2–E4 on the phone: what the app may offer and send, decided only from what the machine
// announced (EC compatibility: a machine without a capability sees exactly what it saw before —
// no `scope`, no `edited`, no `session.interrupt`, no `rules.get`).

export type Extensions = Pick<Capabilities, 'approvalRules' | 'approvalEdit' | 'interrupt'>;

/** The capabilities the machine announced; anything absent is off. */
export function extensionsOf(view: Pick<MachineView, 'status'>): Extensions {
  const c = view.status?.capabilities;
  return {
    approvalRules: c?.approvalRules === true,
    approvalEdit: c?.approvalEdit === true,
    interrupt: c?.interrupt === true,
  };
}

/** E2: the scopes to offer on this card — `once` only unless the machine remembers approvals. */
export function scopeChoices(
  view: Pick<MachineView, 'status'>,
  approval: Pick<ApprovalRequest, 'rule'>,
): ApprovalScope[] {
  return extensionsOf(view).approvalRules ? offeredScopes(approval) : ['once'];
}

/** E3: whether the card offers Edit. */
export const canEdit = (
  view: Pick<MachineView, 'status'>,
  approval: Pick<ApprovalRequest, 'editable'>,
): boolean => extensionsOf(view).approvalEdit && approval.editable !== undefined;

/** E4: a turn is under way (running or waiting on a card), so there is something to stop. */
export const canStop = (view: Pick<MachineView, 'status'>, session: Session): boolean =>
  extensionsOf(view).interrupt &&
  session.live === true &&
  (session.state === SESSION_STATES.running || session.state === SESSION_STATES.awaiting_approval);

/**
 * E10: a session a real agent's hooks told the machine of (started in a terminal): no reply can
 * reach it from the phone; the phone says where to reply instead.
 */
export const startedAtDesk = (session: Pick<Session, 'dispatched' | 'live' | 'agent'>): boolean =>
  !session.dispatched &&
  session.live !== true &&
  session.agent !== undefined &&
  session.agent !== 'mock';

export type ApprovalChoice = { scope?: ApprovalScope; edited?: string; message?: string };
export type ChoiceRefusal =
  'scope-not-offered' | 'not-editable' | 'edit-blank' | 'edit-too-long' | 'message-too-long';
export type ChoiceResult =
  { ok: true; extras: ApprovalChoice } | { ok: false; code: ChoiceRefusal };

/**
 * The extra fields of an `approval.respond`, or the reason the phone will not send them: a
 * capability the machine never announced, or what the machine would refuse itself
 * (protocol/approval-checks.ts, the `edited` limits). `once` and an unchanged edit are left out,
 * so a plain allow is byte-for-byte what it was before E2/E3. Presence (E7) is not judged here.
 */
export function respondExtras(
  view: Pick<MachineView, 'status'>,
  approval: ApprovalRequest,
  decision: Decision,
  choice: ApprovalChoice,
): ChoiceResult {
  const scope = choice.scope === 'once' ? undefined : choice.scope;
  const edited =
    choice.edited === undefined || choice.edited === approval.editable?.value
      ? undefined
      : choice.edited;
  if (scope !== undefined && !scopeChoices(view, approval).includes(scope))
    return { ok: false, code: 'scope-not-offered' };
  if (edited !== undefined && !canEdit(view, approval)) return { ok: false, code: 'not-editable' };
  const refusal = approvalRespondRefusal(approval, { decision, scope, edited });
  if (refusal === 'scope-not-offered' || refusal === 'not-editable')
    return { ok: false, code: refusal };
  if (edited !== undefined && edited.trim() === '') return { ok: false, code: 'edit-blank' };
  if (edited !== undefined && utf8ByteLength(edited) > MAX_EDITABLE_BYTES)
    return { ok: false, code: 'edit-too-long' };
  return {
    ok: true,
    extras: {
      ...(scope !== undefined ? { scope } : {}),
      ...(edited !== undefined ? { edited } : {}),
    },
  };
}

/**
 * E11: what the owner tells the agent with a deny — trimmed, left out when blank (one tap skips
 * it), never with an allow, and refused over MAX_DENY_MESSAGE_CHARS rather than clamped.
 */
export function denyMessageExtra(
  decision: Decision,
  message: string | undefined,
): { ok: true; extras: { message?: string } } | { ok: false; code: ChoiceRefusal } {
  const text = message?.trim() ?? '';
  if (decision !== 'deny' || text === '') return { ok: true, extras: {} };
  if (Array.from(text).length > MAX_DENY_MESSAGE_CHARS)
    return { ok: false, code: 'message-too-long' };
  return { ok: true, extras: { message: text } };
}
