declare const self: ServiceWorkerGlobalScope;

/** The message workbox-window's `messageSkipWaiting()` posts. */
export const SKIP_WAITING_MESSAGE = 'SKIP_WAITING';

/**
 * A new worker waits until the user taps "Reload" in the app (src/pwa/): the page asks it to
 * skip waiting, and only then does the new version take over. A first install has no old
 * version to protect, so it claims the open page at once (offline and push work from the first
 * visit); the page's reload listener is attached only inside the user's tap, so claiming never
 * reloads anything by itself.
 */
export function installUpdate(): void {
  self.addEventListener('message', (event) => {
    const data: unknown = event.data;
    if (
      typeof data === 'object' &&
      data !== null &&
      (data as { type?: unknown }).type === SKIP_WAITING_MESSAGE
    ) {
      void self.skipWaiting();
    }
  });
  self.addEventListener('activate', (event) => {
    event.waitUntil(self.clients.claim());
  });
}
