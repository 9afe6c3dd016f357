import { recordPush, loadRooms, loadSettings } from './keystore.ts';
import { notificationFor } from './logic/notification.ts';
import { openPush } from './logic/open-push.ts';
import { WORKER_MESSAGE_TYPES, type PushReceived } from '../page-worker/messages.ts';
import { alreadyOnScreen } from './logic/visible.ts';
import { windowFacts } from './windows.ts';

declare const self: ServiceWorkerGlobalScope;

/** Where actions are unsupported (iOS) `Notification.maxActions` is absent: 0 buttons. */
function maxActions(): number {
  const n = (self as unknown as { Notification?: { maxActions?: number } }).Notification;
  return typeof n?.maxActions === 'number' ? n.maxActions : 0;
}

/**
 * N3. Every push ends in a notification — even one no key opens ("re-pair needed") —
 * because browsers revoke subscriptions that push silently; the only exception is a window the
 * user is looking at that already shows that session.
 */
export async function handlePush(body: string | null): Promise<void> {
  const [rooms, settings] = await Promise.all([loadRooms(), loadSettings()]);
  const opened = openPush(body, rooms);
  const now = Date.now();
  const roomId = opened.ok ? opened.room.roomId : opened.room?.roomId;
  if (roomId !== undefined) {
    await recordPush(roomId, { at: now, kind: opened.ok ? opened.push.kind : 'unreadable' });
  }
  const { clients: windows, facts } = await windowFacts();
  const shown = !alreadyOnScreen(opened, facts);
  if (shown) {
    const spec = notificationFor(opened, settings, maxActions());
    // `actions` and `renotify` are missing from TypeScript's NotificationOptions.
    const options: NotificationOptions = spec.options;
    await self.registration.showNotification(spec.title, options);
  }
  // Posted once the push is fully handled, so a page (and the e2e suite) that hears it knows the
  // notification is already on screen, or was deliberately skipped.
  for (const w of windows) {
    w.postMessage({
      type: WORKER_MESSAGE_TYPES.pushReceived,
      roomId: roomId ?? null,
      kind: opened.ok ? opened.push.kind : 'unreadable',
      at: now,
      shown,
    } satisfies PushReceived);
  }
}

/** Something failed above (storage, clients): still show that a push arrived. */
async function showFallback(): Promise<void> {
  const spec = notificationFor(
    { ok: false, reason: 'no-pairings', detail: 'The push could not be handled.' },
    await loadSettings(),
    0,
  );
  await self.registration.showNotification(spec.title, spec.options as NotificationOptions);
}

export function installPush(): void {
  self.addEventListener('push', (event) => {
    let body: string | null = null;
    try {
      body = event.data ? event.data.text() : null;
    } catch {
      body = null;
    }
    event.waitUntil(handlePush(body).catch(showFallback));
  });
}
