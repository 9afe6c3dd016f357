import {
  cleanupOutdatedCaches,
  createHandlerBoundToURL,
  precacheAndRoute,
  type PrecacheEntry,
} from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: Array<PrecacheEntry | string>;
};

/**
 * The installed shell works offline: every built asset is precached, and every navigation
 * (including deep links such as a notification's card URL) is answered with the cached app,
 * which routes on the client. Caches of older builds are removed once this worker activates.
 */
export function installPrecache(): void {
  // vite-plugin-pwa replaces this exact expression with the list of built assets.
  precacheAndRoute(self.__WB_MANIFEST);
  cleanupOutdatedCaches();
  registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html')));
}
