import { toBase64Url, type PushSubscriptionJson } from '../../../protocol/index.ts';
import type { PushClient, PushPlatform } from './push-client.ts';
import { WORKER_MESSAGE_TYPES, parseWorkerMessage } from '../../../page-worker/messages.ts';

function toJson(sub: PushSubscription): PushSubscriptionJson {
  const json = sub.toJSON();
  return {
    endpoint: sub.endpoint,
    keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' },
  };
}

/** An activated registration: `ready` can resolve while the worker is still activating. */
async function activeRegistration(): Promise<ServiceWorkerRegistration> {
  const registration = await navigator.serviceWorker.ready;
  const worker = registration.active;
  if (worker && worker.state !== 'activated') {
    await new Promise<void>((resolve) => {
      const check = () => worker.state === 'activated' && resolve();
      worker.addEventListener('statechange', check);
      check();
    });
  }
  return registration;
}

/** The real browser APIs behind PushPlatform. */
export function makeBrowserPushPlatform(): PushPlatform {
  const supported = () =>
    'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
  return {
    supported,
    permission: () => (supported() ? Notification.permission : 'unsupported'),
    requestPermission: () => Notification.requestPermission(),
    async getSubscription() {
      const sub = await (await activeRegistration()).pushManager.getSubscription();
      if (!sub) return null;
      const key = sub.options.applicationServerKey;
      return {
        json: toJson(sub),
        applicationServerKey: key ? toBase64Url(new Uint8Array(key)) : null,
      };
    },
    async subscribe(applicationServerKey) {
      const registration = await activeRegistration();
      const sub = await registration.pushManager.subscribe({
        // Every push shows a notification (sw/push.ts), which is what userVisibleOnly promises.
        userVisibleOnly: true,
        applicationServerKey: applicationServerKey as BufferSource,
      });
      return toJson(sub);
    },
    async unsubscribe() {
      const sub = await (await activeRegistration()).pushManager.getSubscription();
      await sub?.unsubscribe();
    },
  };
}

/** Feeds the worker's messages (page-worker/messages.ts) into the push client. */
export function listenToWorker(client: PushClient): () => void {
  if (!('serviceWorker' in navigator)) return () => undefined;
  const onMessage = (event: MessageEvent) => {
    const parsed = parseWorkerMessage(event.data);
    if (!parsed.ok) return;
    const message = parsed.value;
    if (message.type === WORKER_MESSAGE_TYPES.pushReceived && message.roomId !== null) {
      client.pushReceived(message.roomId, { at: message.at, kind: message.kind });
    } else if (message.type === WORKER_MESSAGE_TYPES.subscriptionChanged) {
      void client.onSubscriptionChanged();
    }
  };
  navigator.serviceWorker.addEventListener('message', onMessage);
  return () => navigator.serviceWorker.removeEventListener('message', onMessage);
}
