// The whole push path as real processes: a fake push service, the relay with its test-only
// --unsafe-allow-push-origin, the mock machine, the app page with its worker, a fabricated
// browser subscription, and a machine-role spy socket that sees what reaches the machine.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, type BrowserContext, type Page } from '@playwright/test';
import { parsePairing, roomKeys } from '../../protocol/index.ts';
import { startChild, type Child } from './child.ts';
import {
  makeFakeSubscriber,
  startFakePushService,
  type FakePushService,
  type FakeSubscriber,
} from '../../testkit/push-service.ts';
import { joinRoom, type RoomSocket, joinMachineRoom } from './room-socket.ts';
import {
  clearNotifications,
  pushDelivery,
  shownNotifications,
  storePairings,
  waitForController,
  writeKeyval,
  type PushDelivery,
  type ShownNotification,
} from './sw.ts';

export type PushWorld = {
  relayUrl: string;
  roomId: string;
  key: Uint8Array;
  machine: Child;
  /** The machine's --root, real path (a dispatch's cwd). */
  work: string;
  spy: RoomSocket;
  pushService: FakePushService;
  subscriber: FakeSubscriber;
  delivery: PushDelivery;
  /** The machine raises an approval while no phone is connected; returns its notification. */
  approvalWhileAway(): Promise<ShownNotification>;
  close(): Promise<void>;
};

/**
 * The test's phone stores a (fabricated) push subscription and starts a task that asks a
 * question first and then runs `echo pushed`: the run's approval is what gets pushed once no
 * phone is left. Resolves with the question.
 */
export async function subscribeThenAskAndRun(
  phone: RoomSocket,
  roomId: string,
  subscription: FakeSubscriber['subscription'],
  cwd: string,
): Promise<Record<string, unknown>> {
  phone.send({ kind: 'push-subscribe', room: roomId, subscription });
  phone.sendMessage({
    v: 1,
    type: 'dispatch.request',
    ts: Date.now(),
    requestId: randomUUID(),
    prompt: 'ask: Go on? | yes | no\nrun: echo pushed',
    cwd,
    worktree: false,
  });
  return phone.waitForMessage((m) => m.type === 'question.request');
}

export async function startPushWorld(
  page: Page,
  context: BrowserContext,
  appOrigin: string,
  options: {
    machineArgs?: readonly string[];
    /** E5: the owner allowed lock-screen content, so an approval shows `what` and offers Allow. */
    lockScreenContent?: boolean;
  } = {},
): Promise<PushWorld> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dsh-push-e2e-'));
  const cleanups: Array<() => Promise<void>> = [
    async () => rmSync(dir, { recursive: true, force: true }),
  ];
  const close = async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  };
  try {
    const pushService = await startFakePushService();
    cleanups.push(() => pushService.close());
    const listening = /relay listening on (ws:\/\/\S+)/;
    const relay = await startChild(
      'relay',
      [
        'relay/main.ts',
        ...['--host', '127.0.0.1', '--port', '0', '--data-dir', path.join(dir, 'relay')],
        ...['--vapid-subject', 'mailto:e2e@example.invalid'],
        ...['--unsafe-allow-push-origin', pushService.origin, '--log-level', 'warn'],
      ],
      listening,
    );
    cleanups.push(() => relay.stop());
    const relayUrl = (await relay.waitFor(listening))[1]!.replace(/\/$/, '');
    const work = path.join(dir, 'work');
    mkdirSync(work);
    const codeLine = /Pairing code: (\S+)/;
    const machine = await startChild(
      'machine',
      [
        'machine/main.ts',
        ...['--relay', relayUrl, '--state-dir', path.join(dir, 'machine')],
        ...['--root', work, '--name', 'laptop'],
        ...(options.machineArgs ?? []),
      ],
      codeLine,
    );
    cleanups.push(() => machine.stop());
    const pairing = parsePairing((await machine.waitFor(codeLine))[1]!);
    if (!pairing.ok) throw new Error(pairing.message);
    const { roomId, key } = roomKeys(pairing.value.secretBytes);

    // The phone app, paired with this machine (the app's stored layout), its worker running.
    await context.grantPermissions(['notifications'], { origin: appOrigin });
    await page.goto('/');
    await waitForController(page);
    await storePairings(page, [
      { roomId, relay: relayUrl, machine: 'laptop', secret: pairing.value.secret, pairedAt: 1 },
    ]);
    if (options.lockScreenContent)
      await writeKeyval(page, 'push-settings', { showSessionTitle: true, language: 'en' });
    await clearNotifications(page);
    const delivery = await pushDelivery(context, page, appOrigin);
    cleanups.push(() => delivery.close());

    // pushManager.subscribe cannot reach a push service here: a fabricated subscription whose
    // private key the test holds stands in for the browser's.
    const subscriber = makeFakeSubscriber(pushService.endpoint('phone-1'));
    const spy = await joinRoom(relayUrl, roomId, 'machine', key);
    cleanups.push(() => spy.close());

    const approvalWhileAway = async (): Promise<ShownNotification> => {
      const phone = await joinMachineRoom(relayUrl, roomId, key);
      const question = await subscribeThenAskAndRun(
        phone,
        roomId,
        subscriber.subscription,
        realpathSync(work),
      );
      // The phone goes away; once the relay has told the machine side, the question is answered
      // at the desk and the agent's next step (run → approval) finds no phone: it is pushed.
      const offlineBefore = spy.frames.length;
      await phone.close();
      await spy.waitForFrame(
        (f) =>
          spy.frames.indexOf(f) >= offlineBefore &&
          f.kind === 'presence' &&
          f.role === 'phone' &&
          !f.online,
      );
      const item = (question.items as Array<{ options: Array<{ id: string }> }>)[0]!;
      machine.writeLine(`answer ${String(question.questionId)} ${item.options[0]!.id}`);
      const sent = await pushService.nextRequest();
      expect(sent.headers['content-encoding']).toBe('aes128gcm');
      // The push service carried only ciphertext; inside is the machine's sealed payload.
      expect(sent.body.toString('latin1')).not.toContain('echo pushed');
      await delivery.deliver(subscriber.decrypt(sent.body).toString('utf8'));
      await expect.poll(async () => (await shownNotifications(page)).length).toBe(1);
      return (await shownNotifications(page))[0]!;
    };

    return {
      relayUrl,
      roomId,
      key,
      machine,
      work: realpathSync(work),
      spy,
      pushService,
      subscriber,
      delivery,
      approvalWhileAway,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
