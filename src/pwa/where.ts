import { WHERE_ARE_YOU } from '../client/push/sw-messages.ts';

/**
 * Answers the worker's "which URL do you show?" (sw/windows.ts): it skips a notification only
 * when a visible window shows that very session, and a window client's own `url` misses the
 * app's hash routes.
 */
export function answerWhereAreYou(): void {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent) => {
    const data = event.data as { type?: unknown } | null;
    if (data?.type === WHERE_ARE_YOU) event.ports[0]?.postMessage({ url: location.href });
  });
}
