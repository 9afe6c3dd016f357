// Logs: room ids appear only as their first 8 characters; payloads, push payloads and full push
// endpoints never appear — proven with unique canaries at the most verbose level.
import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  makeFakeSubscriber,
  startFakePushService,
  type FakePushService,
} from '../testkit/push-service.ts';
import { startFixture, type Fixture } from './test-support/relay-fixture.ts';

let fx: Fixture | undefined;
let fake: FakePushService | undefined;
afterEach(async () => {
  await fx?.stop();
  await fake?.close();
});

describe('Security invariant: the relay never logs payloads; log lines carry the room id prefix only', () => {
  it('no canary from a payload, push payload, endpoint or full room id reaches the log', async () => {
    const canary = () => `CANARY${crypto.randomBytes(9).toString('hex')}`;
    const room = `ROOMID${crypto.randomBytes(8).toString('hex')}`; // 22 chars
    const payload = Buffer.from(canary()).toString('base64');
    const pushPayload = canary();
    const endpointSecret = canary();
    const tag = canary().slice(0, 20);
    fake = await startFakePushService();
    fx = await startFixture({
      logLevel: 'debug',
      vapidSubject: 'mailto:t@example.com',
      unsafeAllowPushOrigins: [fake.origin],
    });

    const phone = await fx.client();
    await phone.hello(room, 'phone');
    const subA = makeFakeSubscriber(fake.endpoint(endpointSecret));
    const subB = makeFakeSubscriber(fake.endpoint(`${endpointSecret}b`));
    phone.send({ kind: 'push-subscribe', room, subscription: subA.subscription });
    phone.send({ kind: 'push-subscribe', room, subscription: subB.subscription });
    phone.send({ kind: 'future-kind', room, secret: payload });
    phone.send(`{"kind":"msg","room":"${room}","payload":"${payload}"`); // malformed
    await phone.nextFrame('error');
    await phone.nextFrame('error');
    await fx.relay.idle();
    const machine = await fx.client();
    await machine.hello(room, 'machine');
    await phone.nextFrame('presence');
    machine.send({ kind: 'msg', room, payload, push: { payload: pushPayload, tag } });
    expect((await phone.nextFrame('msg')).payload).toBe(payload);
    await phone.close();
    expect(await machine.nextFrame('presence')).toMatchObject({ online: false });
    fake.respondWith(500, 410); // failures are logged: make sure they log safely
    machine.send({ kind: 'msg', room, payload, push: { payload: pushPayload, tag } });
    await fake.nextRequest();
    await fake.nextRequest();
    expect(await machine.nextFrame('error')).toMatchObject({ code: 'push-failed' });
    machine.send({ kind: 'msg', room: `${room}x`, payload });
    await machine.nextFrame('error');
    await fx.relay.close();

    const text = fx.logs.text();
    expect(text).toContain(room.slice(0, 8));
    expect(fx.logs.lines().some((l) => l.msg === 'push refused')).toBe(true);
    for (const secret of [
      room,
      payload,
      pushPayload,
      endpointSecret,
      tag,
      subA.subscription.keys.p256dh,
      subA.subscription.keys.auth,
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain(room.slice(0, 9));
  });
});
