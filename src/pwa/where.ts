import {
  WORKER_MESSAGE_TYPES,
  parseWorkerMessage,
  type WhereReply,
} from '../../page-worker/messages.ts';

/**
 * Answers the worker's "which URL do you show?" (sw/windows.ts): it skips a notification only
 * when a visible window shows that very session, and a window client's own `url` misses the
 * app's hash routes.
 */
export function answerWhereAreYou(): void {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent) => {
    const message = parseWorkerMessage(event.data);
    if (message.ok && message.value.type === WORKER_MESSAGE_TYPES.whereAreYou) {
      event.ports[0]?.postMessage({ url: location.href } satisfies WhereReply);
    }
  });
}
