import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { startPushWorld, type PushWorld } from './support/push-world.ts';
import { joinMachineRoom } from './support/room-socket.ts';

// Spec "Push delivery receipts" reach the owner: the relay answers the machine's push hint
// (push-no-subscribers here), the machine seals the outcome into machine.status.pushReceipt, and
// Settings › Notifications shows it per machine with a fix; once a push goes through the relay and
// the push service, the line turns to "sent" (the relay reports only failures, never delivery).

let world: PushWorld | undefined;
test.afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The app's visibility as the lifecycle code reads it (hidden closes its socket, D5). */
const setVisible = (page: Page, visible: boolean) =>
  page.evaluate((v) => {
    const state = v ? 'visible' : 'hidden';
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => !v });
    document.dispatchEvent(new Event('visibilitychange'));
  }, visible);

test('Push delivery receipts: "not delivered — no device subscribed" in Settings › Notifications, then "sent" once a push goes through', async ({
  page,
  context,
  baseURL,
}) => {
  // A short answer window, so "sent" comes 1.5 s after a push the relay did not refuse.
  world = await startPushWorld(page, context, baseURL!, {
    machineArgs: ['--push-answer-window-ms', '1500'],
  });
  const w = world;
  const phoneLeftSince = (from: number) =>
    w.spy.waitForFrame(
      (f) =>
        w.spy.frames.indexOf(f) >= from && f.kind === 'presence' && f.role === 'phone' && !f.online,
    );

  // No device is subscribed in the room; the machine's approval is raised while no phone is there.
  const phone = await joinMachineRoom(w.relayUrl, w.roomId, w.key);
  phone.sendMessage({
    v: 1,
    type: 'dispatch.request',
    ts: Date.now(),
    requestId: randomUUID(),
    prompt: 'ask: Go on? | yes | no\nrun: echo receipts',
    cwd: w.work,
    worktree: false,
  });
  const question = await phone.waitForMessage((m) => m.type === 'question.request');
  const before = w.spy.frames.length;
  await phone.close();
  await phoneLeftSince(before);
  const item = (question.items as Array<{ options: Array<{ id: string }> }>)[0]!;
  w.machine.writeLine(`answer ${String(question.questionId)} ${item.options[0]!.id}`);
  await w.machine.waitFor(/push: push-no-subscribers/);

  // The owner opens the app: the machine's status on join carries the receipt.
  await page.reload();
  await page.goto('/#/settings');
  const line = page.locator(`.notifications-settings li[data-room="${w.roomId}"] .push-receipt`);
  await expect(line).toHaveAttribute('data-outcome', 'no-subscribers');
  await expect(line).toHaveAttribute('data-tone', 'problem');
  await expect(line).toContainText(
    /Last notification from laptop: not delivered — no device subscribed \(.+\)/,
  );
  await expect(line).toContainText('Turn on notifications on this device.');
  await page.screenshot({ path: test.info().outputPath('receipt-no-subscribers.png') });

  // A device subscribes and the app goes to the background (its socket closes): the machine's
  // next approval goes out through the relay and the push service and becomes a notification.
  const hiddenAt = w.spy.frames.length;
  await setVisible(page, false);
  await phoneLeftSince(hiddenAt);
  const shown = await w.approvalWhileAway();
  expect(shown.title).toBe('Approval needed · laptop');
  await w.machine.waitFor(/push: sent \(the relay reported no failure\)/);

  // Back in the app: the failure is replaced by "sent" — never "delivered".
  await setVisible(page, true);
  await expect(line).toHaveAttribute('data-outcome', 'sent', { timeout: 15_000 });
  await expect(line).toHaveAttribute('data-tone', 'ok');
  await expect(line).toContainText(
    /Last notification from laptop: sent — the relay reported no failure \(.+\)/,
  );
  await expect(line).not.toContainText('delivered');
  await page.screenshot({ path: test.info().outputPath('receipt-sent.png') });
});
