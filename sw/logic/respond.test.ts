import { afterEach, describe, expect, it } from 'vitest';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { randomUUID } from 'node:crypto';
import {
  generateSecret,
  makeBoxKeyPair,
  openPhoneMessage,
  roomKeys,
  seal,
  toBase64,
  toBase64Url,
  type ApprovalClosed,
} from '../../protocol/index.ts';
import { APPROVAL_OUTCOMES } from './outcome.ts';
import { APPROVAL_CONFIRM_DEADLINE_MS, respondToApproval, type RespondInput } from './respond.ts';
import { roomsFromPairings } from './rooms.ts';
import type { Timeouts } from './socket.ts';
import {
  nodeSocket,
  startFakeRelay as start,
  stopAllFakeRelays,
} from './test-support/fake-relay.ts';

afterEach(stopAllFakeRelays);
const startFakeRelay = (key: Uint8Array, machinesPresent: number) =>
  start({ key, machinesPresent });

function input(relayUrl: string, roomId: string, key: Uint8Array, timers: Timeouts): RespondInput {
  return {
    relayUrl,
    roomId,
    key,
    approvalId: 'appr-1',
    decision: 'allow',
    socket: nodeSocket,
    timers,
    now: Date.now,
    randomUUID,
  };
}

const closedMsg = (key: Uint8Array, room: string, fields: Partial<ApprovalClosed>) => ({
  kind: 'msg',
  room,
  payload: seal(
    {
      v: 1,
      type: 'approval.closed',
      ts: Date.now(),
      approvalId: 'appr-1',
      resolution: 'allow',
      ...fields,
    },
    key,
  ),
});

describe('N4: Allow/Deny from the notification over a short-lived socket', () => {
  it('sends exactly one sealed approval.respond with a fresh requestId and reports "allowed"', async () => {
    const { roomId, key } = roomKeys(generateSecret());
    const relay = await startFakeRelay(key, 1);
    const timers = makeManualTimers();
    const result = respondToApproval(input(relay.url, roomId, key, timers));
    const message = await relay.nextMessage();
    expect(message).toMatchObject({
      type: 'approval.respond',
      approvalId: 'appr-1',
      decision: 'allow',
    });
    // E2/E3: from a notification the answer is once, as shown: no scope, no edit.
    expect(message).not.toHaveProperty('scope');
    expect(message).not.toHaveProperty('edited');
    expect(relay.frames[0]).toEqual({ kind: 'hello', room: roomId, role: 'phone' });
    relay.sendToPhone(closedMsg(key, roomId, { resolution: 'allow' }));
    const outcome = await result;
    expect(outcome).toMatchObject({ outcome: APPROVAL_OUTCOMES.allowed, sent: true });
    expect(message.type === 'approval.respond' && message.requestId).toBe(outcome.requestId);
    await relay.closed(); // the socket is short-lived
    expect(relay.received).toHaveLength(1);
  });

  it('"Already answered on the computer" when the machine closed it locally', async () => {
    const { roomId, key } = roomKeys(generateSecret());
    const relay = await startFakeRelay(key, 1);
    const result = respondToApproval({
      ...input(relay.url, roomId, key, makeManualTimers()),
      decision: 'deny',
    });
    await relay.nextMessage();
    relay.sendToPhone(closedMsg(key, roomId, { resolution: 'local' }));
    expect((await result).outcome).toBe(APPROVAL_OUTCOMES.answeredOnComputer);
  });

  it('ignores a closed for another approval and frames sealed with another key', async () => {
    const { roomId, key } = roomKeys(generateSecret());
    const relay = await startFakeRelay(key, 1);
    const result = respondToApproval(input(relay.url, roomId, key, makeManualTimers()));
    await relay.nextMessage();
    // Either of these, if taken for ours, would end the wait as "allowed".
    relay.sendToPhone(closedMsg(key, roomId, { approvalId: 'another', resolution: 'allow' }));
    relay.sendToPhone(closedMsg(roomKeys(generateSecret()).key, roomId, { resolution: 'allow' }));
    relay.sendToPhone(closedMsg(key, roomId, { resolution: 'expired' }));
    expect((await result).outcome).toBe(APPROVAL_OUTCOMES.alreadyClosed);
  });

  it('no confirmation within the deadline → "not-confirmed"; the decision was still sent once', async () => {
    const { roomId, key } = roomKeys(generateSecret());
    const relay = await startFakeRelay(key, 1);
    const clock = makeManualTimers();
    const result = respondToApproval(input(relay.url, roomId, key, clock));
    await relay.nextMessage();
    expect(clock.delays()).toEqual([APPROVAL_CONFIRM_DEADLINE_MS]);
    clock.advance(APPROVAL_CONFIRM_DEADLINE_MS);
    expect(await result).toMatchObject({ outcome: APPROVAL_OUTCOMES.notConfirmed, sent: true });
    await relay.closed();
    expect(relay.received).toHaveLength(1);
  });

  it('machine away at hello: nothing is sent (the relay would drop it)', async () => {
    const { roomId, key } = roomKeys(generateSecret());
    const relay = await startFakeRelay(key, 0);
    const result = respondToApproval(input(relay.url, roomId, key, makeManualTimers()));
    await relay.framesSeen(1);
    // Frames are handled in order: this error ends the wait after hello-ok (machine: 0) was read.
    relay.sendToPhone({ kind: 'error', code: 'limit' });
    expect(await result).toMatchObject({ outcome: APPROVAL_OUTCOMES.notConfirmed, sent: false });
    expect(relay.frames.map((f) => f.kind)).toEqual(['hello']);
  });

  it('waits for the machine to join when it is away, then sends once', async () => {
    const { roomId, key } = roomKeys(generateSecret());
    const relay = await startFakeRelay(key, 0);
    const result = respondToApproval(input(relay.url, roomId, key, makeManualTimers()));
    const first = relay.nextMessage();
    // hello-ok said machine: 0 — nothing may be sent yet.
    await relay.framesSeen(1);
    expect(relay.received).toHaveLength(0);
    relay.sendToPhone({ kind: 'presence', room: roomId, role: 'machine', online: true });
    await first;
    relay.sendToPhone(closedMsg(key, roomId, { resolution: 'allow' }));
    expect((await result).outcome).toBe(APPROVAL_OUTCOMES.allowed);
    expect(relay.received).toHaveLength(1);
  });

  it('relay unreachable: not-confirmed, nothing sent', async () => {
    const { roomId, key } = roomKeys(generateSecret());
    const relay = await startFakeRelay(key, 1);
    const url = relay.url;
    await relay.stop();
    const result = await respondToApproval(input(url, roomId, key, makeManualTimers()));
    expect(result).toMatchObject({ outcome: APPROVAL_OUTCOMES.notConfirmed, sent: false });
  });

  it('a relay error frame (e.g. bad-hello, limit) ends the wait as not-confirmed', async () => {
    const { roomId, key } = roomKeys(generateSecret());
    const relay = await startFakeRelay(key, 1);
    const result = respondToApproval(input(relay.url, roomId, key, makeManualTimers()));
    await relay.nextMessage();
    relay.sendToPhone({ kind: 'error', code: 'limit', message: 'too many messages' });
    expect((await result).outcome).toBe(APPROVAL_OUTCOMES.notConfirmed);
  });
});

describe("E9: an answer from the notification is proven like the app's", () => {
  it('E9: with the stored identity and the code-pinned machine key the answer goes as phone.sealed, opened by that key', async () => {
    const { roomId, key } = roomKeys(generateSecret());
    const relay = await startFakeRelay(key, 1);
    const machine = makeBoxKeyPair();
    const phone = makeBoxKeyPair();
    const proof = {
      phoneId: 'p-1',
      phoneSecretKey: phone.secretKey,
      machineBoxKey: machine.publicKey,
    };
    const result = respondToApproval({
      ...input(relay.url, roomId, key, makeManualTimers()),
      proof,
    });
    const sealed = (await relay.nextMessage()) as unknown as Record<string, string>;
    expect(sealed).toMatchObject({ type: 'phone.sealed', phoneId: 'p-1' });
    expect(
      openPhoneMessage(sealed.box!, sealed.message!, phone.publicKey, machine.secretKey).ok,
    ).toBe(true);
    expect(JSON.parse(sealed.message!)).toMatchObject({
      type: 'approval.respond',
      approvalId: 'appr-1',
      phoneId: 'p-1',
    });
    relay.sendToPhone(closedMsg(key, roomId, { resolution: 'allow' }));
    expect((await result).outcome).toBe(APPROVAL_OUTCOMES.allowed);
  });
});

describe('E9: the worker reads the proof from the stored pairing', () => {
  it('E9: a pairing whose key came with the code gives a proof; one pinned otherwise gives none', () => {
    const machine = makeBoxKeyPair();
    const phone = makeBoxKeyPair();
    const entry = {
      secret: toBase64Url(generateSecret()),
      relay: 'wss://relay.example',
      machine: 'laptop',
      phone: { phoneId: 'p-1', boxSecretKey: toBase64(phone.secretKey) },
      machineBoxKey: toBase64(machine.publicKey),
      boxKeyFromCode: true,
    };
    expect(roomsFromPairings([entry])[0]?.proof).toEqual({
      phoneId: 'p-1',
      phoneSecretKey: phone.secretKey,
      machineBoxKey: machine.publicKey,
    });
    const { boxKeyFromCode: _fromCode, ...pinnedFromStatus } = entry;
    expect(roomsFromPairings([pinnedFromStatus])[0]).not.toHaveProperty('proof');
  });
});
