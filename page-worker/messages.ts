import { err, ok, type Result } from '../protocol/result.ts';

// postMessage between the service worker and the app's pages. A page and a worker of different
// builds can meet during an update, so each side parses what it receives (parseWorkerMessage,
// parsePageMessage) and ignores what it does not understand.

export const WORKER_MESSAGE_TYPES = {
  /** A push arrived and was handled — `shown` false when a visible window already shows its
   * session (the page updates "last push received", D13 state). */
  pushReceived: 'dsh:push-received',
  /** The push subscription was replaced; the page re-sends push-subscribe. */
  subscriptionChanged: 'dsh:push-subscription-changed',
  /** An Allow/Deny from a notification ended with this outcome. */
  approvalAnswered: 'dsh:approval-answered',
  /** To a page the worker cannot navigate (not yet controlled): go here. */
  navigate: 'dsh:navigate',
  /**
   * With a reply port: "which URL do you show?" A window client's `url` is where the document
   * was loaded and misses the app's later hash routes, so the page answers itself (WhereReply).
   */
  whereAreYou: 'dsh:where-are-you',
} as const;

export const PAGE_MESSAGE_TYPES = {
  /**
   * Run the notification-click handler for the displayed notification with this tag, as if
   * `action` was tapped. There is no DevTools command for a notification click, so the e2e suite
   * drives the real handler this way. It grants a page nothing new: a same-origin page already
   * holds the room keys and can answer any approval itself, and only a notification that is on
   * screen right now can be targeted.
   */
  runNotificationAction: 'dsh:run-notification-action',
} as const;

/** How long the worker waits for a page's WhereReply before trusting `client.url`. */
export const WHERE_REPLY_TIMEOUT_MS = 500;

const T = WORKER_MESSAGE_TYPES;
export type PushReceived = {
  type: typeof T.pushReceived;
  /** null when no paired machine's key opened the push. */
  roomId: string | null;
  kind: string;
  at: number;
  shown: boolean;
};
export type SubscriptionChanged = { type: typeof T.subscriptionChanged };
export type ApprovalAnswered = {
  type: typeof T.approvalAnswered;
  roomId: string;
  approvalId: string;
  outcome: string;
};
export type Navigate = { type: typeof T.navigate; url: string };
export type WhereAreYou = { type: typeof T.whereAreYou };
export type WorkerMessage =
  PushReceived | SubscriptionChanged | ApprovalAnswered | Navigate | WhereAreYou;

export type RunNotificationAction = {
  type: typeof PAGE_MESSAGE_TYPES.runNotificationAction;
  tag: string;
  action: string;
};
export type PageMessage = RunNotificationAction;
/** The page's answer to WhereAreYou, on the port the worker sent. */
export type WhereReply = { url: string };

export const MESSAGE_ERRORS = {
  notAMessage: 'not-a-message',
  unknownType: 'unknown-type',
  badField: 'bad-field',
} as const;
export type MessageError = (typeof MESSAGE_ERRORS)[keyof typeof MESSAGE_ERRORS];

const fields = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
const isString = (v: unknown): v is string => typeof v === 'string';
const bad = (type: string, field: string) =>
  err(MESSAGE_ERRORS.badField, `${type}: ${field} is missing or of the wrong type`);
const notAMessage = () => err(MESSAGE_ERRORS.notAMessage, 'not an object with a type');

/** What a page receives from the worker. */
export function parseWorkerMessage(value: unknown): Result<WorkerMessage, MessageError> {
  const m = fields(value);
  if (!m || !isString(m.type)) return notAMessage();
  switch (m.type) {
    case T.pushReceived:
      if (m.roomId !== null && !isString(m.roomId)) return bad(m.type, 'roomId');
      if (!isString(m.kind)) return bad(m.type, 'kind');
      if (typeof m.at !== 'number') return bad(m.type, 'at');
      if (typeof m.shown !== 'boolean') return bad(m.type, 'shown');
      return ok({ type: m.type, roomId: m.roomId, kind: m.kind, at: m.at, shown: m.shown });
    case T.subscriptionChanged:
    case T.whereAreYou:
      return ok({ type: m.type });
    case T.approvalAnswered:
      if (!isString(m.roomId)) return bad(m.type, 'roomId');
      if (!isString(m.approvalId)) return bad(m.type, 'approvalId');
      if (!isString(m.outcome)) return bad(m.type, 'outcome');
      return ok({ type: m.type, roomId: m.roomId, approvalId: m.approvalId, outcome: m.outcome });
    case T.navigate:
      return isString(m.url) ? ok({ type: m.type, url: m.url }) : bad(m.type, 'url');
    default:
      return err(MESSAGE_ERRORS.unknownType, `unknown worker message type ${m.type}`);
  }
}

/** What the worker receives from a page. */
export function parsePageMessage(value: unknown): Result<PageMessage, MessageError> {
  const m = fields(value);
  if (!m || !isString(m.type)) return notAMessage();
  if (m.type !== PAGE_MESSAGE_TYPES.runNotificationAction) {
    return err(MESSAGE_ERRORS.unknownType, `unknown page message type ${m.type}`);
  }
  if (!isString(m.tag)) return bad(m.type, 'tag');
  if (!isString(m.action)) return bad(m.type, 'action');
  return ok({ type: m.type, tag: m.tag, action: m.action });
}

/** The page's answer to WhereAreYou; null when it is not one (an old page, a stray message). */
export function parseWhereReply(value: unknown): WhereReply | null {
  const url = fields(value)?.url;
  return isString(url) ? { url } : null;
}
