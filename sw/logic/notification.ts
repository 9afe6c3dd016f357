import { WHAT_CUT_SUFFIX, type CompactPush } from '../../protocol/index.ts';
import { cardUrl, HOME_URL } from './card-url.ts';
import type { OpenedPush } from './open-push.ts';
import type { PushSettings } from '../../page-worker/push-settings.ts';
import { stringsFor } from './strings.ts';

export const NOTIFICATION_ACTIONS = { allow: 'allow', deny: 'deny' } as const;
export type NotificationActionName =
  (typeof NOTIFICATION_ACTIONS)[keyof typeof NOTIFICATION_ACTIONS];

/** What a tap needs later; stored in `notification.data` (visible only on this device). */
export type NotificationData = {
  url: string;
  roomId?: string;
  sessionId?: string;
  approvalId?: string;
  /**
   * E5: this notification offered Allow (it shows the whole `what`). An `allow` action on one
   * that did not — an older worker's notification, a forged action — opens the card instead.
   */
  allowOffered?: true;
  /** Kept so an outcome notification can repeat the lock-screen-safe body. */
  body: string;
};

export type NotificationSpec = {
  title: string;
  options: {
    body: string;
    tag: string;
    data: NotificationData;
    actions: Array<{ action: NotificationActionName; title: string }>;
    icon: string;
    badge: string;
    /** Re-alert when a newer push replaces one with the same tag. */
    renotify: boolean;
    /** Approvals stay until answered; other kinds may time out on desktop. */
    requireInteraction: boolean;
  };
};

export const ICON_URL = '/icons/icon-192.png';
export const BADGE_URL = '/icons/badge-96.png';
/** Every unreadable push collapses into one "re-pair needed" notification. */
export const REPAIR_TAG = 'repair-needed';

/**
 * The tag collapses what belongs together: one notification per approval and per question (each
 * stays answerable on its own), one per session for done/error.
 */
export function tagFor(roomId: string, push: CompactPush): string {
  if (push.approvalId !== undefined) return `approval:${roomId}:${push.approvalId}`;
  if (push.questionId !== undefined) return `question:${roomId}:${push.questionId}`;
  return `session:${roomId}:${push.sessionId}`;
}

/**
 * Title and body per kind, with the machine's name. The session title (the start of the user's
 * prompt) can be private: it is shown on the lock screen only when the owner opted in.
 * `maxActions` is the platform's `Notification.maxActions` (0 where actions are unsupported,
 * e.g. iOS: the tap then opens the card).
 */
export function notificationFor(
  opened: OpenedPush,
  settings: PushSettings,
  maxActions: number,
): NotificationSpec {
  const s = stringsFor(settings.language);
  const common = { icon: ICON_URL, badge: BADGE_URL };
  if (!opened.ok) {
    const body = s.repairBody;
    return {
      title: opened.room ? s.activityTitle(opened.room.machine || s.unknownMachine) : s.repairTitle,
      options: {
        ...common,
        body: opened.room ? s.activityBody : body,
        tag: opened.room ? `activity:${opened.room.roomId}` : REPAIR_TAG,
        data: {
          url: opened.room ? cardUrl({ roomId: opened.room.roomId }) : HOME_URL,
          ...(opened.room ? { roomId: opened.room.roomId } : {}),
          body: opened.room ? s.activityBody : body,
        },
        actions: [],
        renotify: false,
        requireInteraction: false,
      },
    };
  }
  const { room, push } = opened;
  const machine = room.machine || s.unknownMachine;
  const byKind = {
    approval: { title: s.approvalTitle(machine), body: s.approvalBody },
    question: { title: s.questionTitle(machine), body: s.questionBody },
    done: { title: s.doneTitle(machine), body: s.doneBody },
    error: { title: s.errorTitle(machine), body: s.errorBody },
  } as const;
  const text = byKind[push.kind];
  // E5: with lock-screen content allowed, the body says what is asked (`what`), else the session
  // title as before; without it, neither.
  const shown = settings.showSessionTitle ? (push.what ?? push.title).trim() : '';
  const body = shown !== '' ? shown : text.body;
  const answerable = push.kind === 'approval' && push.approvalId !== undefined;
  // E5: Allow only for what the notification shows whole (a cut `what` ends in the mark), and
  // always once (no remembered scope from a notification); Deny is always safe.
  // E7: an Allow that needs verified presence needs an assertion, and a worker cannot make one
  // (no WebAuthn): only Deny here; a tap opens the card, where Allow asks for it.
  const allowOffered =
    answerable &&
    push.presence !== true &&
    maxActions >= 2 &&
    settings.showSessionTitle &&
    push.what !== undefined &&
    !push.what.endsWith(WHAT_CUT_SUFFIX);
  const actions = allowOffered
    ? [
        { action: NOTIFICATION_ACTIONS.allow, title: s.allow },
        { action: NOTIFICATION_ACTIONS.deny, title: s.deny },
      ]
    : answerable && maxActions >= 1
      ? [{ action: NOTIFICATION_ACTIONS.deny, title: s.deny }]
      : [];
  return {
    title: text.title,
    options: {
      ...common,
      body,
      tag: tagFor(room.roomId, push),
      data: {
        url: cardUrl({
          roomId: room.roomId,
          sessionId: push.sessionId,
          ...(push.approvalId !== undefined ? { approvalId: push.approvalId } : {}),
          ...(push.questionId !== undefined ? { questionId: push.questionId } : {}),
        }),
        roomId: room.roomId,
        sessionId: push.sessionId,
        ...(push.approvalId !== undefined ? { approvalId: push.approvalId } : {}),
        ...(allowOffered ? { allowOffered: true as const } : {}),
        body,
      },
      actions,
      renotify: true,
      requireInteraction: push.kind === 'approval' || push.kind === 'question',
    },
  };
}
