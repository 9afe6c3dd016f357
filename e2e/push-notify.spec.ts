import { expect, test, type Page } from '@playwright/test';
import {
  compactPush,
  generateSecret,
  roomKeys,
  seal,
  toBase64Url,
  type CompactPushFields,
} from '../protocol/index.ts';
import {
  clearNotifications,
  pushDelivery,
  runNotificationAction,
  shownNotifications,
  storePairings,
  waitForController,
  writeKeyval,
  type PushDelivery,
} from './support/sw.ts';

// N3–N4 through the real service worker: pushes are handed to it by the DevTools
// protocol (ServiceWorker.deliverPushMessage) — no push service is reachable here. The whole
// relay → push service path is in push-path.spec.ts.

const machine = (name: string) => {
  const secret = generateSecret();
  const { roomId, key } = roomKeys(secret);
  return {
    roomId,
    key,
    record: {
      roomId,
      relay: 'ws://127.0.0.1:9',
      machine: name,
      secret: toBase64Url(secret),
      pairedAt: 1,
    },
  };
};
const laptop = machine('laptop');
const desktop = machine('desktop');
const SECRET_TITLE = 'Rotate the production database password';

let delivery: PushDelivery;

async function setUp(
  page: Page,
  context: import('@playwright/test').BrowserContext,
  baseURL: string,
) {
  await context.grantPermissions(['notifications'], { origin: baseURL });
  await page.goto('/');
  await waitForController(page);
  await storePairings(page, [laptop.record, desktop.record]);
  await clearNotifications(page);
  delivery = await pushDelivery(context, page, baseURL);
}

const sealedFor = (m: { key: Uint8Array }, fields: CompactPushFields) =>
  seal(compactPush(fields), m.key);

async function nextNotifications(page: Page, count: number) {
  await expect.poll(async () => (await shownNotifications(page)).length).toBe(count);
  return shownNotifications(page);
}

test.afterEach(async () => {
  await delivery?.close();
});

test('D6, E5: a push sealed for the second paired machine becomes its approval notification; private by default, it offers Deny only', async ({
  page,
  context,
  baseURL,
}) => {
  await setUp(page, context, baseURL!);
  await delivery.deliver(
    sealedFor(desktop, {
      kind: 'approval',
      sessionId: 's-1',
      title: SECRET_TITLE,
      approvalId: 'appr-1',
    }),
  );
  const [n] = await nextNotifications(page, 1);
  expect(n).toMatchObject({
    title: 'Approval needed · desktop',
    body: 'A tool call is waiting for your decision.',
    tag: `approval:${desktop.roomId}:appr-1`,
    actions: [{ action: 'deny', title: 'Deny' }],
    data: { url: `/#/m/${desktop.roomId}/s/s-1/approval/appr-1` },
  });
  // Lock-screen privacy by default: the session title is nowhere in the notification.
  expect(JSON.stringify(n)).not.toContain('production database');
});

test('E5: with lock-screen content allowed the notification shows `what` and offers Allow; a cut `what` or none offers Deny only, and Allow there opens the card', async ({
  page,
  context,
  baseURL,
}) => {
  await setUp(page, context, baseURL!);
  await writeKeyval(page, 'push-settings', { showSessionTitle: true, language: 'en' });
  const approval = (approvalId: string, what?: string) =>
    sealedFor(laptop, {
      kind: 'approval',
      sessionId: 's-1',
      title: SECRET_TITLE,
      approvalId,
      ...(what !== undefined ? { what } : {}),
    });
  await delivery.deliver(approval('a-what', 'Run a command: npm test'));
  await delivery.deliver(approval('a-cut', `Run a command: ${'x'.repeat(300)}`));
  await delivery.deliver(approval('a-none'));
  const shown = await nextNotifications(page, 3);
  const byTag = (id: string) => shown.find((x) => x.tag === `approval:${laptop.roomId}:${id}`)!;
  expect(byTag('a-what')).toMatchObject({
    body: 'Run a command: npm test',
    actions: [
      { action: 'allow', title: 'Allow' },
      { action: 'deny', title: 'Deny' },
    ],
  });
  expect(byTag('a-cut').body.endsWith('…')).toBe(true);
  expect(byTag('a-cut').actions).toEqual([{ action: 'deny', title: 'Deny' }]);
  expect(byTag('a-none').actions).toEqual([{ action: 'deny', title: 'Deny' }]);
  // An Allow the notification did not offer (a forged action) answers nothing: it opens the card.
  const result = await runNotificationAction(page, byTag('a-cut').tag, 'allow');
  expect(result).toMatchObject({ plan: 'open' });
});

test('Every push shows a notification: wrong key, garbage and an unknown kind included', async ({
  page,
  context,
  baseURL,
}) => {
  await setUp(page, context, baseURL!);
  const stranger = machine('stranger');
  await delivery.deliver(sealedFor(stranger, { kind: 'done', sessionId: 's', title: 't' }));
  const [repair] = await nextNotifications(page, 1);
  expect(repair).toMatchObject({ title: 'Re-pair needed', tag: 'repair-needed', actions: [] });
  await delivery.deliver('definitely not a sealed payload');
  await nextNotifications(page, 1); // collapsed under the same tag
  await delivery.deliver(
    seal({ v: 1, type: 'push', kind: 'deploy', sessionId: 's', title: 't' }, laptop.key),
  );
  const shown = await nextNotifications(page, 2);
  expect(shown.map((x) => x.title).sort()).toEqual(['New activity · laptop', 'Re-pair needed']);
});

test('Title and body per kind; tags collapse per session; opting in shows the session title', async ({
  page,
  context,
  baseURL,
}) => {
  await setUp(page, context, baseURL!);
  await delivery.deliver(
    sealedFor(laptop, { kind: 'question', sessionId: 's-2', title: 'q', questionId: 'q-1' }),
  );
  await delivery.deliver(sealedFor(laptop, { kind: 'done', sessionId: 's-3', title: 'd' }));
  await delivery.deliver(sealedFor(laptop, { kind: 'error', sessionId: 's-3', title: 'e' }));
  const shown = await nextNotifications(page, 2);
  expect(shown.map((x) => [x.title, x.tag, x.actions.length]).sort()).toEqual([
    ['Error · laptop', `session:${laptop.roomId}:s-3`, 0],
    ['Question · laptop', `question:${laptop.roomId}:q-1`, 0],
  ]);
  await clearNotifications(page);
  await writeKeyval(page, 'push-settings', { showSessionTitle: true, language: 'en' });
  await delivery.deliver(
    sealedFor(laptop, { kind: 'done', sessionId: 's-4', title: SECRET_TITLE }),
  );
  const [optedIn] = await nextNotifications(page, 1);
  expect(optedIn!.body).toBe(SECRET_TITLE);
});

test('No notification only when a visible window already shows that session', async ({
  page,
  context,
  baseURL,
}) => {
  await setUp(page, context, baseURL!);
  await page.goto(`/#/m/${laptop.roomId}/s/s-5`);
  expect(
    await delivery.deliver(sealedFor(laptop, { kind: 'done', sessionId: 's-5', title: 't' })),
  ).toEqual({ shown: false });
  expect(
    await delivery.deliver(sealedFor(laptop, { kind: 'done', sessionId: 's-6', title: 't' })),
  ).toEqual({ shown: true });
  const shown = await nextNotifications(page, 1);
  expect(shown[0]!.tag).toBe(`session:${laptop.roomId}:s-6`);
});

test('A tap on the notification opens the exact card', async ({ page, context, baseURL }) => {
  await setUp(page, context, baseURL!);
  await delivery.deliver(
    sealedFor(laptop, { kind: 'approval', sessionId: 's-7', title: 't', approvalId: 'appr-7' }),
  );
  const [n] = await nextNotifications(page, 1);
  const result = await runNotificationAction(page, n!.tag, '');
  expect(result).toMatchObject({ ok: true, plan: 'open' });
  await expect(page).toHaveURL(`${baseURL}/#/m/${laptop.roomId}/s/s-7/approval/appr-7`);
  expect(await shownNotifications(page)).toEqual([]);
});
