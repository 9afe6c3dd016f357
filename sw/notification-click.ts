import { loadRooms, loadSettings } from './keystore.ts';
import { clickPlan, type ClickPlan } from './logic/click.ts';
import { BADGE_URL, ICON_URL } from './logic/notification.ts';
import { APPROVAL_OUTCOMES, outcomeTitle, type ApprovalOutcome } from './logic/outcome.ts';
import { respondToApproval } from './logic/respond.ts';
import { browserSocket, browserTimers as timers } from './browser-io.ts';
import { stringsFor } from './logic/strings.ts';
import {
  WORKER_MESSAGE_TYPES,
  parsePageMessage,
  type ApprovalAnswered,
  type Navigate,
} from '../page-worker/messages.ts';

declare const self: ServiceWorkerGlobalScope;

export type ClickResult = { plan: ClickPlan['kind']; outcome?: ApprovalOutcome };

/** Focuses an open window of the app and navigates it to the card, or opens one. */
async function openCard(url: string): Promise<void> {
  const absolute = new URL(url, self.location.origin).href;
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const win = windows.find((w) => new URL(w.url).origin === self.location.origin);
  if (!win) {
    await self.clients.openWindow(absolute);
    return;
  }
  // focus() needs the user's tap; outside one (the e2e message path) it is refused.
  await win.focus().catch(() => undefined);
  try {
    await win.navigate(absolute);
  } catch {
    // navigate() works only on windows this worker controls; the app routes the others.
    win.postMessage({ type: WORKER_MESSAGE_TYPES.navigate, url } satisfies Navigate);
  }
}

/**
 * The one handler behind a notification tap (body, Allow or Deny). An answer is sent only for an
 * explicit Allow or Deny tap on a notification about one approval (N4).
 */
export async function handleNotificationClick(
  action: string,
  data: unknown,
  tag: string,
): Promise<ClickResult> {
  const plan = clickPlan(action, data);
  if (plan.kind === 'open') {
    await openCard(plan.url);
    return { plan: plan.kind };
  }
  const [rooms, settings] = await Promise.all([loadRooms(), loadSettings()]);
  const s = stringsFor(settings.language);
  const common = { tag, body: plan.body, icon: ICON_URL, badge: BADGE_URL };
  const outcomeData = { url: plan.url, body: plan.body };
  // Replace the buttons at once so a second tap cannot answer twice.
  await self.registration.showNotification(
    plan.decision === 'allow' ? s.sendingAllow : s.sendingDeny,
    { ...common, data: outcomeData },
  );
  const room = rooms.find((r) => r.roomId === plan.roomId);
  const outcome = room
    ? (
        await respondToApproval({
          relayUrl: room.relay,
          roomId: room.roomId,
          key: room.key,
          approvalId: plan.approvalId,
          decision: plan.decision,
          socket: browserSocket,
          timers,
          now: Date.now,
          randomUUID: () => crypto.randomUUID(),
          ...(room.proof ? { proof: room.proof } : {}),
        })
      ).outcome
    : APPROVAL_OUTCOMES.notConfirmed;
  await self.registration.showNotification(outcomeTitle(outcome, s), {
    ...common,
    data: outcomeData,
  });
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const w of windows) {
    w.postMessage({
      type: WORKER_MESSAGE_TYPES.approvalAnswered,
      roomId: plan.roomId,
      approvalId: plan.approvalId,
      outcome,
    } satisfies ApprovalAnswered);
  }
  return { plan: plan.kind, outcome };
}

export function installNotificationClick(): void {
  self.addEventListener('notificationclick', (event) => {
    const { notification } = event;
    notification.close();
    event.waitUntil(
      handleNotificationClick(event.action, notification.data, notification.tag).then(
        () => undefined,
      ),
    );
  });

  // The e2e path (PAGE_MESSAGE_TYPES.runNotificationAction): same handler, for a notification on
  // screen now.
  self.addEventListener('message', (event) => {
    const message = parsePageMessage(event.data);
    if (!message.ok) return;
    const { tag, action } = message.value;
    const reply = (message: unknown) => event.ports[0]?.postMessage(message);
    event.waitUntil(
      self.registration.getNotifications({ tag }).then(async (shown) => {
        const notification = shown[0];
        if (!notification) return reply({ ok: false, code: 'no-such-notification' });
        notification.close();
        const result = await handleNotificationClick(action, notification.data, notification.tag);
        reply({ ok: true, ...result });
      }),
    );
  });
}
