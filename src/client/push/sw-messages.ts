// postMessage types between the worker and the page. Mirrors sw/logic/sw-messages.ts.
export const PUSH_RECEIVED = 'dsh:push-received';
export const SUBSCRIPTION_CHANGED = 'dsh:push-subscription-changed';
export const APPROVAL_ANSWERED = 'dsh:approval-answered';
export const NAVIGATE = 'dsh:navigate';
export const RUN_NOTIFICATION_ACTION = 'dsh:run-notification-action';
export const WHERE_ARE_YOU = 'dsh:where-are-you';
