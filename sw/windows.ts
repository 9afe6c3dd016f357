import {
  WHERE_REPLY_TIMEOUT_MS,
  WORKER_MESSAGE_TYPES,
  parseWhereReply,
  type WhereAreYou,
} from '../page-worker/messages.ts';
import type { WindowFacts } from './logic/visible.ts';

declare const self: ServiceWorkerGlobalScope;

/** Asks a window for its current URL; an old or busy page falls back to `client.url`. */
function currentUrl(client: WindowClient): Promise<string> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(client.url), WHERE_REPLY_TIMEOUT_MS);
    channel.port1.onmessage = (event) => {
      clearTimeout(timer);
      resolve(parseWhereReply(event.data)?.url ?? client.url);
    };
    client.postMessage({ type: WORKER_MESSAGE_TYPES.whereAreYou } satisfies WhereAreYou, [
      channel.port2,
    ]);
  });
}

/** The app's windows and what each one shows now (only visible ones are asked). */
export async function windowFacts(): Promise<{
  clients: readonly WindowClient[];
  facts: WindowFacts[];
}> {
  const clients = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const facts = await Promise.all(
    clients.map(async (w) => ({
      url: w.visibilityState === 'visible' ? await currentUrl(w) : w.url,
      visibilityState: w.visibilityState,
      focused: w.focused,
    })),
  );
  return { clients, facts };
}
