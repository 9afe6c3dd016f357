import type { Decision, MachineMessage } from '../../protocol/index.ts';
import type { SwStrings } from './strings.ts';

// How an Allow/Deny tap from a notification ended, and what replaces the notification.

export const APPROVAL_OUTCOMES = {
  allowed: 'allowed',
  denied: 'denied',
  /** approval.closed with resolution 'local': the owner answered at the computer first. */
  answeredOnComputer: 'answered-on-computer',
  /** Closed otherwise (expired, superseded, the other decision from another phone, not-pending). */
  alreadyClosed: 'already-closed',
  /** No confirmation within the deadline, or the relay/machine could not be reached. */
  notConfirmed: 'not-confirmed',
} as const;
export type ApprovalOutcome = (typeof APPROVAL_OUTCOMES)[keyof typeof APPROVAL_OUTCOMES];

/** Closing the socket's wait: a confirmation for this approval, or nothing we recognise. */
export function outcomeFromMessage(
  message: MachineMessage,
  approvalId: string,
  decision: Decision,
  requestId: string,
): ApprovalOutcome | null {
  if (message.type === 'approval.closed') {
    if (message.approvalId !== approvalId) return null;
    if (message.resolution === decision) {
      return decision === 'allow' ? APPROVAL_OUTCOMES.allowed : APPROVAL_OUTCOMES.denied;
    }
    if (message.resolution === 'local') return APPROVAL_OUTCOMES.answeredOnComputer;
    return APPROVAL_OUTCOMES.alreadyClosed;
  }
  // D11: a decision for an id that is not pending is answered with an error `not-pending`.
  // Errors carry no approval id, so only one that names our request or approval is ours.
  if (message.type === 'error' && message.reason === 'not-pending') {
    const mentions = `${message.context ?? ''} ${message.message}`;
    if (mentions.includes(approvalId) || mentions.includes(requestId)) {
      return APPROVAL_OUTCOMES.alreadyClosed;
    }
  }
  return null;
}

export function outcomeTitle(outcome: ApprovalOutcome, s: SwStrings): string {
  switch (outcome) {
    case APPROVAL_OUTCOMES.allowed:
      return s.allowed;
    case APPROVAL_OUTCOMES.denied:
      return s.denied;
    case APPROVAL_OUTCOMES.answeredOnComputer:
      return s.answeredOnComputer;
    case APPROVAL_OUTCOMES.alreadyClosed:
      return s.alreadyClosed;
    case APPROVAL_OUTCOMES.notConfirmed:
      return s.notConfirmed;
  }
}
