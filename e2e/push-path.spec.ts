import { expect, test } from '@playwright/test';
import { startPushWorld, type PushWorld } from './support/push-world.ts';
import { runNotificationAction, shownNotifications } from './support/sw.ts';

// N5, the whole path: the mock machine seals an approval push → the real relay sends it
// with Web Push to a local fake push service (the relay's test-only --unsafe-allow-push-origin)
// → the test decrypts the RFC 8291 body → hands it to the service worker (DevTools protocol) →
// notification → Allow or Deny through the notification-click handler → the machine.

let world: PushWorld | undefined;
test.afterEach(async () => {
  await world?.close();
  world = undefined;
});

const answersSeen = (w: PushWorld) => w.spy.messages.filter((m) => m.type === 'approval.respond');
const titles = async (page: import('@playwright/test').Page) =>
  (await shownNotifications(page)).map((n) => n.title);

test('Whole path, E5: a sealed push through relay and push service becomes a notification that says what it asks; Allow reaches the machine exactly once', async ({
  page,
  context,
  baseURL,
}) => {
  world = await startPushWorld(page, context, baseURL!, { lockScreenContent: true });
  const shown = await world.approvalWhileAway();
  expect(shown).toMatchObject({
    title: 'Approval needed · laptop',
    body: expect.stringContaining('echo pushed'),
    actions: [
      { action: 'allow', title: 'Allow' },
      { action: 'deny', title: 'Deny' },
    ],
  });
  const approvalId = String(shown.data.approvalId);
  expect(shown.tag).toBe(`approval:${world.roomId}:${approvalId}`);

  const result = await runNotificationAction(page, shown.tag, 'allow');
  expect(result).toMatchObject({ ok: true, plan: 'respond', outcome: 'allowed' });
  await expect.poll(() => titles(page)).toEqual(['Allowed']);
  expect((await shownNotifications(page))[0]!.actions).toEqual([]);
  expect(answersSeen(world)).toEqual([
    expect.objectContaining({ approvalId, decision: 'allow', requestId: expect.any(String) }),
  ]);
  await world.machine.waitFor(new RegExp(`approval ${approvalId.slice(0, 8)} closed: allow`));
});

test('E5: by default (no lock-screen content) the notification offers Deny only; one deny reaches the machine, it says "Denied"', async ({
  page,
  context,
  baseURL,
}) => {
  world = await startPushWorld(page, context, baseURL!);
  const shown = await world.approvalWhileAway();
  expect(shown.actions).toEqual([{ action: 'deny', title: 'Deny' }]);
  expect(shown.body).not.toContain('echo pushed');
  const result = await runNotificationAction(page, shown.tag, 'deny');
  expect(result).toMatchObject({ ok: true, outcome: 'denied' });
  await expect.poll(() => titles(page)).toEqual(['Denied']);
  expect(answersSeen(world)).toEqual([
    expect.objectContaining({ approvalId: shown.data.approvalId, decision: 'deny' }),
  ]);
});

test('Answered at the computer first: Allow from the notification changes nothing and says so (D11 not-pending)', async ({
  page,
  context,
  baseURL,
}) => {
  world = await startPushWorld(page, context, baseURL!, { lockScreenContent: true });
  const shown = await world.approvalWhileAway();
  const id = String(shown.data.approvalId).slice(0, 8);
  world.machine.writeLine(`deny ${id}`);
  await world.machine.waitFor(new RegExp(`denied ${id} here`));
  const result = await runNotificationAction(page, shown.tag, 'allow');
  expect(result).toMatchObject({ ok: true, outcome: 'already-closed' });
  await expect.poll(() => titles(page)).toEqual(['No longer waiting — open the app']);
  // The machine kept the desk's decision: no second closing.
  expect(world.machine.output().match(new RegExp(`approval ${id} closed`, 'g'))).toHaveLength(1);
});

test('Machine gone: no confirmation within 10 s → "Not confirmed — open the app", which opens the card', async ({
  page,
  context,
  baseURL,
}) => {
  world = await startPushWorld(page, context, baseURL!, { lockScreenContent: true });
  const shown = await world.approvalWhileAway();
  await world.machine.stop();
  const result = await runNotificationAction(page, shown.tag, 'allow');
  expect(result).toMatchObject({ ok: true, outcome: 'not-confirmed' });
  const [outcome] = await shownNotifications(page);
  expect(outcome).toMatchObject({ title: 'Not confirmed — open the app', actions: [] });
  expect(outcome!.data.url).toBe(shown.data.url);
  // The spy still counts as a machine in the room, so the decision went out — once, never retried.
  expect(answersSeen(world)).toHaveLength(1);
});
