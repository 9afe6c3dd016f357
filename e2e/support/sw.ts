/// <reference lib="dom" />
// Code inside page.evaluate runs in the browser: DOM types for it (the rest of e2e/ is Node).
// Service worker helpers for the push e2e suite; every trick here is in docs/push.md.
import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import { PAGE_MESSAGE_TYPES, WORKER_MESSAGE_TYPES } from '../../page-worker/messages.ts';

/** Waits until a worker is activated and controls the page (`ready` resolves too early). */
export async function waitForController(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const worker = registration.active;
    if (worker && worker.state !== 'activated') {
      await new Promise<void>((resolve) => {
        worker.addEventListener('statechange', () => worker.state === 'activated' && resolve());
      });
    }
    if (!navigator.serviceWorker.controller) {
      await new Promise<void>((resolve) =>
        navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), {
          once: true,
        }),
      );
    }
  });
}

const PUSH_HANDLED_DEADLINE_MS = 10_000;

export type PushDelivery = {
  /** Resolves once the worker has handled the push: `shown` false when it deliberately skipped. */
  deliver(data: string): Promise<{ shown: boolean }>;
  close(): Promise<void>;
};

/**
 * Delivers a push straight to the page's worker through the DevTools protocol: no push service is
 * reachable here. The registration id is learned from workerRegistrationUpdated, which must be
 * listened to before ServiceWorker.enable.
 */
export async function pushDelivery(
  context: BrowserContext,
  page: Page,
  origin: string,
): Promise<PushDelivery> {
  const session: CDPSession = await context.newCDPSession(page);
  const scope = `${origin}/`;
  const registrationId = new Promise<string>((resolve) => {
    session.on('ServiceWorker.workerRegistrationUpdated', (event) => {
      for (const r of event.registrations) {
        if (r.scopeURL === scope && !r.isDeleted) resolve(r.registrationId);
      }
    });
  });
  await session.send('ServiceWorker.enable');
  const id = await registrationId;
  return {
    deliver: async (data) => {
      // DevTools answers before the worker runs, so wait for the worker's own report instead.
      await page.evaluate((type) => {
        const w = window as unknown as { dshPushHandled?: Promise<boolean> };
        w.dshPushHandled = new Promise<boolean>((resolve) => {
          const onMessage = (event: MessageEvent) => {
            const msg = event.data as { type?: unknown; shown?: unknown } | null;
            if (msg?.type !== type) return;
            navigator.serviceWorker.removeEventListener('message', onMessage);
            resolve(msg.shown === true);
          };
          navigator.serviceWorker.addEventListener('message', onMessage);
          navigator.serviceWorker.startMessages();
        });
      }, WORKER_MESSAGE_TYPES.pushReceived);
      await session.send('ServiceWorker.deliverPushMessage', { origin, registrationId: id, data });
      const shown = await page.evaluate(
        (ms) =>
          Promise.race([
            (window as unknown as { dshPushHandled: Promise<boolean> }).dshPushHandled,
            new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ms)),
          ]),
        PUSH_HANDLED_DEADLINE_MS,
      );
      if (shown === 'late') {
        throw new Error(
          `the worker did not report handling the push within ${PUSH_HANDLED_DEADLINE_MS} ms`,
        );
      }
      return { shown };
    },
    close: () => session.detach(),
  };
}

export type ShownNotification = {
  title: string;
  body: string;
  tag: string;
  data: Record<string, unknown>;
  actions: Array<{ action: string; title: string }>;
};

/** The notifications the worker shows now (`registration.getNotifications()`). */
export function shownNotifications(page: Page): Promise<ShownNotification[]> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const list = await registration.getNotifications();
    return list.map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data as Record<string, unknown>,
      actions: [
        ...((n as unknown as { actions?: Array<{ action: string; title: string }> }).actions ?? []),
      ].map((a) => ({ action: a.action, title: a.title })),
    }));
  });
}

/** Closes every notification the worker shows, so the next assertion starts clean. */
export async function clearNotifications(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    for (const n of await registration.getNotifications()) n.close();
  });
}

/**
 * Runs the worker's notification-click handler for the notification with this tag, exactly as a
 * tap on `action` would ('' = the body). There is no DevTools command for a notification click.
 */
export function runNotificationAction(
  page: Page,
  tag: string,
  action: string,
): Promise<{ ok: boolean; plan?: string; outcome?: string; code?: string }> {
  return page.evaluate(
    ({ type, tag, action }) =>
      new Promise((resolve) => {
        const channel = new MessageChannel();
        channel.port1.onmessage = (e) => resolve(e.data);
        navigator.serviceWorker.controller?.postMessage({ type, tag, action }, [channel.port2]);
      }),
    { type: PAGE_MESSAGE_TYPES.runNotificationAction, tag, action },
  );
}

/** Writes the app's stored pairings (src/client/pairing-store.ts layout) into the shared store. */
export async function storePairings(page: Page, pairings: unknown[]): Promise<void> {
  await writeKeyval(page, 'pairings', pairings);
}

export async function writeKeyval(page: Page, key: string, value: unknown): Promise<void> {
  await page.evaluate(
    ({ key, value }) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('keyval-store');
        open.onupgradeneeded = () => open.result.createObjectStore('keyval');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction('keyval', 'readwrite');
          tx.objectStore('keyval').put(value, key);
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    { key, value },
  );
}

export async function readKeyval(page: Page, key: string): Promise<unknown> {
  return page.evaluate(
    (key) =>
      new Promise<unknown>((resolve, reject) => {
        const open = indexedDB.open('keyval-store');
        open.onupgradeneeded = () => open.result.createObjectStore('keyval');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('keyval', 'readonly').objectStore('keyval').get(key);
          get.onsuccess = () => {
            open.result.close();
            resolve(get.result);
          };
          get.onerror = () => reject(get.error);
        };
      }),
    key,
  );
}
