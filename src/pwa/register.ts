import { Workbox } from 'workbox-window';
import { makeUpdateFlow, type UpdateFlow } from './update-flow.ts';

/** How often an open app asks whether a new version was deployed (also on becoming visible). */
export const UPDATE_CHECK_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Registers the service worker built from sw/ (vite-plugin-pwa writes it to /sw.js). Returns
 * null where there is no worker: unsupported browsers and the dev server (VITE_PWA_DEV=1 opts in).
 */
export function registerServiceWorker(): UpdateFlow | null {
  if (!('serviceWorker' in navigator)) return null;
  const dev = import.meta.env.DEV;
  if (dev && import.meta.env.VITE_PWA_DEV !== '1') return null;
  const workbox = dev
    ? new Workbox('/dev-sw.js?dev-sw', { type: 'module', scope: '/' })
    : new Workbox('/sw.js', { scope: '/' });
  const flow = makeUpdateFlow(workbox, () => window.location.reload());
  void workbox.register();
  const check = () => void workbox.update().catch(() => undefined);
  setInterval(check, UPDATE_CHECK_INTERVAL_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') check();
  });
  return flow;
}
