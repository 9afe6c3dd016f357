import { DECISIONS, type Decision } from '../../protocol/index.ts';
import { HOME_URL } from './card-url.ts';
import { NOTIFICATION_ACTIONS, type NotificationData } from './notification.ts';

export type ClickPlan =
  | { kind: 'open'; url: string }
  | {
      kind: 'respond';
      decision: Decision;
      roomId: string;
      approvalId: string;
      /** Where "Not confirmed — open the app" leads. */
      url: string;
      body: string;
    };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Reads `notification.data` defensively: it may come from an older worker version. */
export function parseNotificationData(value: unknown): NotificationData {
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const url = str(v.url);
  const roomId = str(v.roomId);
  const sessionId = str(v.sessionId);
  const approvalId = str(v.approvalId);
  return {
    ...(v.allowOffered === true ? { allowOffered: true as const } : {}),
    // Only same-origin paths: a notification must never navigate the app elsewhere.
    url: url !== undefined && url.startsWith('/') && !url.startsWith('//') ? url : HOME_URL,
    ...(roomId !== undefined ? { roomId } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(approvalId !== undefined ? { approvalId } : {}),
    body: str(v.body) ?? '',
  };
}

/**
 * What a tap does. Allow/Deny answer only when the user tapped that very button on a notification
 * about one approval; a tap on the body (action '') or anything else opens the card. Nothing is
 * ever answered without an explicit Allow or Deny tap, and Allow only where the notification
 * offered it (E5). The answer is always `once`: a remembered scope is never sent from here (E2).
 */
export function clickPlan(action: string, rawData: unknown): ClickPlan {
  const data = parseNotificationData(rawData);
  const decision =
    action === NOTIFICATION_ACTIONS.allow
      ? DECISIONS.allow
      : action === NOTIFICATION_ACTIONS.deny
        ? DECISIONS.deny
        : undefined;
  if (decision === undefined || data.roomId === undefined || data.approvalId === undefined) {
    return { kind: 'open', url: data.url };
  }
  // E5: Allow answers only from a notification that offered it (it showed what it allows).
  if (decision === DECISIONS.allow && data.allowOffered !== true) {
    return { kind: 'open', url: data.url };
  }
  return {
    kind: 'respond',
    decision,
    roomId: data.roomId,
    approvalId: data.approvalId,
    url: data.url,
    body: data.body,
  };
}
