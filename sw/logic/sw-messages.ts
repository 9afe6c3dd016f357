// postMessage between the worker and its pages. Mirrored in src/client/push/sw-messages.ts
// (sw/ and src/ may not import each other); e2e proves both ends agree.

/** worker → pages: a push arrived and was handled — `shown` false when a visible window already
 * shows its session (the page updates "last push received", D13 state). */
export const PUSH_RECEIVED = 'dsh:push-received';
/** worker → pages: the push subscription was replaced; the page re-sends push-subscribe. */
export const SUBSCRIPTION_CHANGED = 'dsh:push-subscription-changed';
/** worker → pages: an Allow/Deny from a notification ended with this outcome. */
export const APPROVAL_ANSWERED = 'dsh:approval-answered';
/** worker → a page that cannot be navigated by the worker (not yet controlled): go here. */
export const NAVIGATE = 'dsh:navigate';
/**
 * worker → page, with a reply port: "which URL do you show?" A window client's `url` is where
 * the document was loaded and misses the app's later hash routes, so the page answers itself.
 */
export const WHERE_ARE_YOU = 'dsh:where-are-you';
/** How long the worker waits for a page's answer before trusting `client.url`. */
export const WHERE_REPLY_TIMEOUT_MS = 500;
/**
 * page → worker: run the notification-click handler for the displayed notification with this
 * tag, as if `action` was tapped. There is no DevTools command for a notification click, so the
 * e2e suite drives the real handler this way. It grants a page nothing new: a same-origin page
 * already holds the room keys and can answer any approval itself, and only a notification that
 * is on screen right now can be targeted.
 */
export const RUN_NOTIFICATION_ACTION = 'dsh:run-notification-action';

export type RunNotificationAction = {
  type: typeof RUN_NOTIFICATION_ACTION;
  tag: string;
  action: string;
};

export function isRunNotificationAction(v: unknown): v is RunNotificationAction {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  return (
    m.type === RUN_NOTIFICATION_ACTION && typeof m.tag === 'string' && typeof m.action === 'string'
  );
}
