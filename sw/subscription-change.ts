import { loadRooms } from './keystore.ts';
import { resubscribeRooms } from './logic/resubscribe.ts';
import { browserSocket, browserTimers as timers } from './browser-io.ts';
import { WORKER_MESSAGE_TYPES, type SubscriptionChanged } from '../page-worker/messages.ts';
import type { PushSubscriptionJson } from '../protocol/index.ts';

declare const self: ServiceWorkerGlobalScope;

function toJson(sub: PushSubscription): PushSubscriptionJson | null {
  const json = sub.toJSON();
  const { p256dh, auth } = json.keys ?? {};
  if (!json.endpoint || !p256dh || !auth) return null;
  return { endpoint: json.endpoint, keys: { p256dh, auth } };
}

/** N2: the browser replaced our subscription; move every room to the new endpoint. */
async function onSubscriptionChange(
  oldSub: PushSubscription | null,
  newSub: PushSubscription | null,
): Promise<void> {
  let next = newSub;
  if (!next && oldSub?.options.applicationServerKey) {
    next = await self.registration.pushManager
      .subscribe({
        userVisibleOnly: true,
        applicationServerKey: oldSub.options.applicationServerKey,
      })
      .catch(() => null);
  }
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const w of windows)
    w.postMessage({ type: WORKER_MESSAGE_TYPES.subscriptionChanged } satisfies SubscriptionChanged);
  const subscription = next ? toJson(next) : null;
  if (!subscription) return;
  const byRelay = new Map<string, string[]>();
  for (const room of await loadRooms()) {
    byRelay.set(room.relay, [...(byRelay.get(room.relay) ?? []), room.roomId]);
  }
  await Promise.all(
    [...byRelay].map(([relayUrl, roomIds]) =>
      resubscribeRooms({
        relayUrl,
        roomIds,
        oldEndpoint: oldSub?.endpoint ?? null,
        subscription,
        socket: browserSocket,
        timers,
      }),
    ),
  );
}

export function installSubscriptionChange(): void {
  self.addEventListener('pushsubscriptionchange', (event) => {
    event.waitUntil(onSubscriptionChange(event.oldSubscription, event.newSubscription));
  });
}
