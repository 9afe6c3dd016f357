import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { parsePairing, roomKeys } from '../protocol/index.ts';
import { startChild, type Child } from './support/child.ts';
import {
  makeFakeSubscriber,
  startFakePushService,
  type FakePushService,
} from './support/fake-push-service.ts';
import { joinRoom, type RoomSocket } from './support/room-socket.ts';
import {
  clearNotifications,
  pushDelivery,
  runNotificationAction,
  shownNotifications,
  storePairings,
  waitForController,
} from './support/sw.ts';

// Issue 8 §5, the whole path: the mock machine seals an approval push → the real relay sends it
// with Web Push to a local fake push service (the relay's test-only --unsafe-allow-push-origin)
// → the test decrypts the RFC 8291 body → hands it to the service worker (DevTools protocol) →
// notification → Allow through the notification-click handler → the machine gets one answer.

let dir: string;
let pushService: FakePushService | undefined;
let relay: Child | undefined;
let machine: Child | undefined;
const sockets: RoomSocket[] = [];

test.beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dsh-push-e2e-'));
});
test.afterEach(async () => {
  await Promise.all(sockets.splice(0).map((s) => s.close()));
  await machine?.stop();
  await relay?.stop();
  await pushService?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('Whole path: a sealed push through relay and push service becomes a notification; Allow reaches the machine exactly once', async ({
  page,
  context,
  baseURL,
  request,
}) => {
  pushService = await startFakePushService();
  relay = await startChild(
    'relay',
    [
      'relay/main.ts',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      path.join(dir, 'relay'),
      '--vapid-subject',
      'mailto:e2e@example.invalid',
      '--unsafe-allow-push-origin',
      pushService.origin,
      '--log-level',
      'warn',
    ],
    /relay listening on (ws:\/\/\S+)/,
  );
  const relayUrl = (await relay.waitFor(/relay listening on (ws:\/\/\S+)/))[1]!.replace(/\/$/, '');
  const work = path.join(dir, 'work');
  mkdirSync(work);
  machine = await startChild(
    'machine',
    [
      'machine/main.ts',
      '--relay',
      relayUrl,
      '--state-dir',
      path.join(dir, 'machine'),
      '--root',
      work,
      '--name',
      'laptop',
    ],
    /Pairing code: (\S+)/,
  );
  const code = (await machine.waitFor(/Pairing code: (\S+)/))[1]!;
  const pairing = parsePairing(code);
  if (!pairing.ok) throw new Error(pairing.message);
  const { roomId, key } = roomKeys(pairing.value.secretBytes);

  // The relay's VAPID key is what a real phone would subscribe with.
  const vapid = await request.get(`${relayUrl.replace('ws:', 'http:')}/vapid`);
  expect((await vapid.json()) as unknown).toMatchObject({ publicKey: expect.stringMatching(/^B/) });

  // The phone app, paired with this machine (the app's stored layout) and its worker running.
  await context.grantPermissions(['notifications'], { origin: baseURL! });
  await page.goto('/');
  await waitForController(page);
  await storePairings(page, [
    {
      roomId,
      relay: relayUrl,
      machine: 'laptop',
      secret: pairing.value.secret,
      pairedAt: Date.now(),
    },
  ]);
  await clearNotifications(page);
  const delivery = await pushDelivery(context, page, baseURL!);

  // pushManager.subscribe cannot reach a push service here: a fabricated subscription whose
  // private key the test holds stands in for the browser's.
  const subscriber = makeFakeSubscriber(pushService.endpoint('phone-1'));
  const spy = await joinRoom(relayUrl, roomId, 'machine', key);
  sockets.push(spy);
  const phone = await joinRoom(relayUrl, roomId, 'phone', key);
  sockets.push(phone);
  phone.send({ kind: 'push-subscribe', room: roomId, subscription: subscriber.subscription });
  phone.sendMessage({
    v: 1,
    type: 'dispatch.request',
    ts: Date.now(),
    requestId: randomUUID(),
    prompt: 'ask: Go on? | yes | no\nrun: echo pushed',
    cwd: realpathSync(work),
    worktree: false,
  });
  const question = await phone.waitForMessage((m) => m.type === 'question.request');
  // The phone goes away; once the relay has told the machine side, the question is answered at
  // the desk and the agent's next step (run → approval) finds no phone: it must be pushed.
  await phone.close();
  sockets.splice(sockets.indexOf(phone), 1);
  await spy.waitForFrame((f) => f.kind === 'presence' && f.role === 'phone' && !f.online);
  const item = (question.items as Array<{ options: Array<{ id: string }> }>)[0]!;
  machine.writeLine(`answer ${String(question.questionId)} ${item.options[0]!.id}`);

  const sent = await pushService.nextRequest();
  expect(sent.headers['content-encoding']).toBe('aes128gcm');
  const body = subscriber.decrypt(sent.body).toString('utf8');
  // The push service saw only ciphertext; what it carried is the machine's sealed payload.
  expect(sent.body.toString('latin1')).not.toContain('echo pushed');
  await delivery.deliver(body);

  await expect.poll(async () => (await shownNotifications(page)).length).toBe(1);
  const [shown] = await shownNotifications(page);
  expect(shown).toMatchObject({
    title: 'Approval needed · laptop',
    actions: [
      { action: 'allow', title: 'Allow' },
      { action: 'deny', title: 'Deny' },
    ],
  });
  const approvalId = String(shown!.data.approvalId);
  expect(shown!.tag).toBe(`approval:${roomId}:${approvalId}`);

  const result = await runNotificationAction(page, shown!.tag, 'allow');
  expect(result).toMatchObject({ ok: true, plan: 'respond', outcome: 'allowed' });
  await expect
    .poll(async () => (await shownNotifications(page)).map((n) => n.title))
    .toEqual(['Allowed']);
  expect((await shownNotifications(page))[0]!.actions).toEqual([]);
  const answers = spy.messages.filter((m) => m.type === 'approval.respond');
  expect(answers).toEqual([
    expect.objectContaining({ approvalId, decision: 'allow', requestId: expect.any(String) }),
  ]);
  await delivery.close();
});
