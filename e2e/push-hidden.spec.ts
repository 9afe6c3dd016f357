import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startPushWorld, type PushWorld } from './support/push-world.ts';
import { joinMachineRoom } from './support/room-socket.ts';
import { shownNotifications } from './support/sw.ts';

// N5 / D5: the app hidden → its socket closes (lifecycle.ts) → the relay tells the
// machine the last phone left → the machine's next approval goes out as a push, through the real
// relay and the fake push service, and becomes a notification.

let world: PushWorld | undefined;
test.afterEach(async () => {
  await world?.close();
  world = undefined;
});

test('D5: the app hidden → its socket closes → the machine’s next approval goes out as a push', async ({
  page,
  context,
  baseURL,
}) => {
  world = await startPushWorld(page, context, baseURL!);
  const w = world;
  const phonePresenceSince = (from: number) => (f: (typeof w.spy.frames)[number]) =>
    w.spy.frames.indexOf(f) >= from && f.kind === 'presence' && f.role === 'phone';

  // The app, now with the stored pairing, connects to the room: the machine side sees a phone.
  const beforeApp = w.spy.frames.length;
  await page.reload();
  await w.spy.waitForFrame(
    (f) => phonePresenceSince(beforeApp)(f) && f.kind === 'presence' && f.online,
  );

  // pushManager.subscribe cannot succeed here: the test's own phone socket registers the
  // fabricated subscription and starts a task that asks first, then runs a command (approval).
  const phone = await joinMachineRoom(w.relayUrl, w.roomId, w.key);
  phone.send({ kind: 'push-subscribe', room: w.roomId, subscription: w.subscriber.subscription });
  phone.sendMessage({
    v: 1,
    type: 'dispatch.request',
    ts: Date.now(),
    requestId: randomUUID(),
    prompt: 'ask: Go on? | yes | no\nrun: echo pushed',
    cwd: w.work,
    worktree: false,
  });
  const question = await phone.waitForMessage((m) => m.type === 'question.request');
  const afterTestPhone = w.spy.frames.length;
  await phone.close();

  // The app is still connected, so nothing says the phones are gone; hiding the app closes its
  // socket after HIDDEN_CLOSE_MS and then the relay tells the machine.
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const offline = await w.spy.waitForFrame(
    (f) => phonePresenceSince(afterTestPhone)(f) && f.kind === 'presence' && !f.online,
  );
  // Exactly one "phones gone" since the test's phone left: the one the hidden app's close caused.
  expect(
    w.spy.frames
      .slice(afterTestPhone)
      .filter((f) => f.kind === 'presence' && f.role === 'phone' && !f.online),
  ).toEqual([offline]);
  expect(w.pushService.received()).toBe(0);

  const item = (question.items as Array<{ options: Array<{ id: string }> }>)[0]!;
  w.machine.writeLine(`answer ${String(question.questionId)} ${item.options[0]!.id}`);
  const sent = await w.pushService.nextRequest();
  expect(sent.body.toString('latin1')).not.toContain('echo pushed');
  await w.delivery.deliver(w.subscriber.decrypt(sent.body).toString('utf8'));
  await expect.poll(async () => (await shownNotifications(page)).length).toBe(1);
  const [shown] = await shownNotifications(page);
  expect(shown).toMatchObject({ title: 'Approval needed · laptop' });
  expect(shown!.tag).toBe(`approval:${w.roomId}:${String(shown!.data.approvalId)}`);
});

test('N2: Settings › Notifications is wired — a tap gets permission and the relay’s /vapid key, then pushManager.subscribe (which no push service can answer here)', async ({
  page,
  context,
  baseURL,
}) => {
  world = await startPushWorld(page, context, baseURL!);
  await page.reload();
  await page.goto('/#/settings');
  const section = page.locator('.notifications-settings');
  // Each paired machine has its line, off until notifications are turned on.
  await expect(section.locator(`li[data-room="${world.roomId}"]`)).toContainText('laptop');
  await section.getByRole('button', { name: 'Turn on notifications' }).click();
  // Past permission (granted) and /vapid (else vapid-unreachable): the browser's subscribe
  // is what fails, and the failure is shown with its code.
  await expect(section.getByRole('alert')).toHaveAttribute('data-code', 'subscribe-failed');
  expect(world.pushService.received()).toBe(0);
});
