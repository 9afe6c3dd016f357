import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeBoxKey,
  encodeBoxKey,
  makeBoxKeyPair,
  openRoomRotate,
  parsePairing,
  type MachineMessage,
} from '../../protocol/index.ts';
import { BOX_KEY_FILE } from './box-key.ts';
import { runDeskLine } from '../desk/desk.ts';
import { RETIRED_ROOM_KEEP_MS, RETIRED_SWEEP_MS } from '../links/retired-rooms.ts';
import { SECRET_FILE } from '../links/state-dir.ts';
import { openSqlite } from '../../device/lane/sqlite.ts';
import { STORE_FILE } from '../sessions/store.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { is, relaySuite, rid } from '../test-support/relay-suite.ts';
import type { PhoneIdentity, TestPhone } from '../test-support/test-phone.ts';
import { until } from '../../testkit/until.ts';

// E6 on the machine, against a real relay process (Web Push on, pushing to a local push service)
// with test phones that hold an identity, register after every hello-ok and follow room.rotate.

const suite = relaySuite({ push: true });

const identity = (name: string): PhoneIdentity => ({
  phoneId: randomUUID(),
  name,
  boxKeyPair: makeBoxKeyPair(),
});

const phonesOf = (m: MachineMessage) => (m.type === 'phones' ? m.phones : []);

/** Waits for a `phones` list in which `pred` holds. */
const phonesWhere = (
  phone: TestPhone,
  pred: (m: Extract<MachineMessage, { type: 'phones' }>) => boolean,
) =>
  phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'phones' }> => m.type === 'phones' && pred(m),
    8000,
  );

/** Resolves once the phone has followed `n` rotations and its new room answered its register. */
async function moved(phone: TestPhone, n = 1): Promise<void> {
  const rotateAt = () => phone.messages.map((m) => m.type).lastIndexOf('room.rotate');
  for (let i = 0; i < 20 && phone.moves.length < n; i++) {
    await phone.waitFor(is('room.rotate'), 8000, rotateAt() + 1);
  }
  if (phone.moves.length < n) throw new Error(`no move; failures: ${phone.rotateFailures}`);
  await phone.waitFor(is('phones'), 8000, rotateAt() + 1);
}

describe('E6: phones as identities (machine side)', () => {
  it('E6.1: phones: true and the machine box key are announced; the key pair is kept owner-only and survives a restart', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const status = await phone.waitFor(is('machine.status'));
    expect(status.capabilities?.phones).toBe(true);
    const file = path.join(w.stateDir, BOX_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const pub = decodeBoxKey(status.boxKey!);
    expect(pub).not.toBeNull();
    const from = phone.messages.length;
    await w.restart();
    const again = await phone.waitFor(is('machine.status'), 8000, from);
    expect(again.boxKey).toBe(status.boxKey);
    expect(readFileSync(file, 'utf8')).not.toContain(status.boxKey!);
  });

  it('E7.1: --require-presence risky is announced as capabilities.presence and marks risky approval.requests presence: true; none announces nothing', async () => {
    const w = await suite.world({ requirePresence: 'risky' });
    const phone = await w.phone();
    expect((await phone.waitFor(is('machine.status'))).capabilities?.presence).toBe('risky');
    w.machine.raiseApproval({ title: 'Run', detail: 'a scripted step offers no rule' });
    expect((await phone.waitFor(is('approval.request'))).presence).toBe(true);
    const none = await suite.world();
    const p2 = await none.phone();
    expect((await p2.waitFor(is('machine.status'))).capabilities).not.toHaveProperty('presence');
  });

  it('E6.2: phone.register is answered with phones; a changed box key is refused; the list survives a restart; the desk revokes a phone once', async () => {
    const w = await suite.world();
    const a = await w.phone({ identity: identity('Pixel 8 · Chrome') });
    const list = await phonesWhere(a, (m) => m.phones.length === 1);
    expect(list.phones[0]).toMatchObject({
      phoneId: a.identity!.phoneId,
      name: 'Pixel 8 · Chrome',
      revoked: false,
      presence: false,
    });
    // Renaming is a change every phone sees.
    const renamed = await a.register({ name: 'My Pixel' });
    expect(phonesOf(renamed)[0]?.name).toBe('My Pixel');
    // Another key under the same id would get the next room.rotate: refused.
    const stolen = await a.register({ boxKey: encodeBoxKey(makeBoxKeyPair().publicKey) });
    expect(stolen).toMatchObject({ type: 'error', context: 'phone.register' });
    // E9: the box key is fixed at the first registration: another one proves nothing.
    expect(w.log.lines.map((l) => l.code)).toContain('identity-refused');
    await w.restart();
    expect(w.machine.phones().map((p) => p.name)).toEqual(['My Pixel']);
    expect(w.machine.revokePhone(a.identity!.phoneId)).toEqual({ ok: true });
    expect(w.machine.revokePhone(a.identity!.phoneId).ok).toBe(false);
    expect(w.machine.revokePhone(randomUUID())).toMatchObject({ ok: false, code: 'no-phone' });
  });

  it('E6.2: approval.closed and question.closed carry by {phoneId, name}; every action records its phoneId', async () => {
    const w = await suite.world();
    const a = await w.phone({ identity: identity('Phone A') });
    await phonesWhere(a, (m) => m.phones.length === 1);
    const { approvalId } = w.machine.raiseApproval({ title: 'Run', detail: 'ls' });
    await a.waitFor(is('approval.request'));
    const denyId = rid();
    a.send({
      type: 'approval.respond',
      requestId: denyId,
      approvalId,
      decision: 'deny',
      phoneId: a.identity!.phoneId,
    });
    const closed = await a.waitFor(is('approval.closed'));
    expect(closed.by).toEqual({ phoneId: a.identity!.phoneId, name: 'Phone A' });
    // The action's phoneId is recorded beside its requestId.
    const db = openSqlite(path.join(w.stateDir, STORE_FILE), { readOnly: true });
    const row = db.prepare('SELECT phone_id FROM seen_requests WHERE request_id = ?').get(denyId);
    db.close();
    expect(row).toEqual({ phone_id: a.identity!.phoneId });
    const { questionId } = w.machine.raiseQuestion({
      items: [
        {
          id: 'q1',
          prompt: 'Go?',
          options: [{ id: '1', label: 'Yes' }],
          multiSelect: false,
          allowFreeText: false,
        },
      ],
    });
    await a.waitFor(is('question.request'));
    a.send({
      type: 'question.respond',
      requestId: rid(),
      questionId,
      answers: [{ itemId: 'q1', optionIds: ['1'] }],
      phoneId: a.identity!.phoneId,
    });
    expect((await a.waitFor(is('question.closed'))).by?.name).toBe('Phone A');
  });

  it('E6.3: revoke one of three phones — the other two move without any action (one was away and moves when it comes back, after a restart); the revoked one acts on nothing, opens no room.rotate, gets no push; the pairing code is the new one', async () => {
    const w = await suite.world();
    const oldCode = w.machine.pairing.code;
    const [idA, idB, idC] = [identity('A'), identity('B'), identity('C')];
    const a = await w.phone({ identity: idA });
    await phonesWhere(a, (m) => m.phones.length === 1);
    const b = await w.phone({ identity: idB });
    const c = await w.phone({ identity: idC });
    await phonesWhere(a, (m) => m.phones.length === 3);
    // E9: A is the first phone (approved); B and C wait until A lets them in.
    for (const id of [idB, idC])
      a.send({ type: 'phone.approve', requestId: rid(), phoneId: id.phoneId });
    await phonesWhere(c, (m) => m.phones.every((p) => p.state === 'approved'));
    a.subscribePush(suite.service().subscription('push-a'));
    b.subscribePush(suite.service().subscription('push-b'));
    c.subscribePush(suite.service().subscription('push-c'));
    await c.close(); // C is away during the revoke

    a.send({ type: 'phone.revoke', requestId: rid(), phoneId: idB.phoneId });
    const seenByB = await phonesWhere(b, (m) => m.phones.some((p) => p.revoked));
    expect(seenByB.phones.find((p) => p.phoneId === idB.phoneId)?.revoked).toBe(true);
    await moved(a);
    // A moved to the room the machine shows now.
    const code = w.machine.pairing.code;
    expect(code).not.toBe(oldCode);
    expect(a.roomId).toBe(w.machine.pairing.roomId);
    expect(parsePairing(code).ok).toBe(true);
    expect(readFileSync(w.machine.pairing.codeFile, 'utf8').trim()).toBe(code);

    // B heard every room.rotate of the old room and can open none of them.
    const rotates = b.messages.filter((m) => m.type === 'room.rotate');
    expect(rotates.map((m) => m.phoneId).sort()).toEqual([idA.phoneId, idC.phoneId].sort());
    for (const r of rotates) {
      const pinned = decodeBoxKey(b.messages.find((m) => m.type === 'machine.status')!.boxKey!)!;
      expect(openRoomRotate(r.box, pinned, idB.boxKeyPair.secretKey)).toMatchObject({
        ok: false,
        code: 'auth-failed',
      });
    }
    expect(b.moves).toEqual([]);

    // The machine restarts; C comes back to the old room and is moved.
    await w.restart();
    expect(w.machine.pairing.code).toBe(code);
    const c2 = await w.phone({ identity: idC, pairingCode: oldCode });
    c2.subscribePush(suite.service().subscription('push-c'));
    await moved(c2);
    expect(c2.roomId).toBe(w.machine.pairing.roomId);
    await phonesWhere(a, (m) => m.phones.length === 3);
    // In the new room, an action or a register claiming B's id is refused: E9 proves the sender.
    const aFrom = a.messages.length;
    a.send({ type: 'rules.get', requestId: rid(), phoneId: idB.phoneId });
    expect(await a.waitFor(is('error'), 8000, aFrom)).toMatchObject({
      reason: 'identity-required',
    });
    const claim = await a.register({
      phoneId: idB.phoneId,
      boxKey: encodeBoxKey(idB.boxKeyPair.publicKey),
    });
    expect(claim).toMatchObject({ type: 'error', reason: 'identity-required' });

    // B in the old room: nothing it sends is acted on, nothing comes back.
    const pending = w.machine.raiseApproval({ title: 'Deploy', detail: 'make deploy' });
    const bFrom = b.messages.length;
    const sessionsBefore = w.machine.sessions().length;
    b.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: pending.approvalId,
      decision: 'allow',
    });
    b.send({ type: 'dispatch.request', requestId: rid(), prompt: 'reply: hi', worktree: false });
    b.send({ type: 'phone.revoke', requestId: rid(), phoneId: idA.phoneId });
    b.send({
      type: 'phone.register',
      requestId: rid(),
      phoneId: idB.phoneId,
      name: 'B',
      boxKey: encodeBoxKey(idB.boxKeyPair.publicKey),
    });
    // None of that is answered but B's register, with its removal proof (E9). The barrier: C's
    // late register in the same room, answered with C's room.rotate, which B hears after
    // everything it sent.
    const c3 = await w.phone({ identity: { ...idC }, pairingCode: oldCode });
    await b.waitFor((m) => m.type === 'room.rotate' && m.phoneId === idC.phoneId, 8000, bFrom);
    await c3.close();
    expect(b.messages.slice(bFrom).map((m) => m.type)).toEqual(['phone.removed', 'room.rotate']);
    expect(b.removals.length).toBeGreaterThanOrEqual(1);
    expect(w.machine.pendingApprovals().map((x) => x.approvalId)).toContain(pending.approvalId);
    expect(w.machine.sessions()).toHaveLength(sessionsBefore);
    expect(w.machine.phones().find((p) => p.phoneId === idA.phoneId)?.revoked).toBe(false);

    // With nobody online in the new room, a push goes to A's and C's new-room subscriptions only.
    await a.close();
    await c2.close();
    await until(() => !w.machine.status().phoneOnline, 'no phone online in the new room');
    const before = suite.service().receivedFor().length;
    w.machine.raiseApproval({ title: 'Push me', detail: 'x' });
    await suite.service().answered(before + 2, 8000);
    const pushed = suite.service().receivedFor().slice(before);
    expect(pushed.sort()).toEqual(['push-a', 'push-c']);
  });

  it('E6.4: a retired room is kept for late phones for 30 days and then left (injected clock, across a restart)', async () => {
    const w = await suite.world();
    const oldCode = w.machine.pairing.code;
    const a = await w.phone({ identity: identity('A') });
    await phonesWhere(a, (m) => m.phones.length === 1);
    const b = await w.phone({ identity: identity('B') });
    await phonesWhere(a, (m) => m.phones.length === 2);
    expect(w.machine.revokePhone(b.identity!.phoneId)).toEqual({ ok: true });
    await moved(a);
    // Within 30 days the machine is still in the old room (for late phones), restart or not.
    await w.restart({ timers: makeManualTimers(Date.now() + RETIRED_ROOM_KEEP_MS - 60_000) });
    const early = await w.phone({ pairingCode: oldCode });
    expect(early.frames.find((f) => f.kind === 'hello-ok')).toMatchObject({
      peers: { machine: 1 },
    });
    // Past 30 days it leaves the room: a phone there sees it go.
    const timers = makeManualTimers(Date.now() + RETIRED_ROOM_KEEP_MS - 60_000);
    await w.restart({ timers });
    await early.waitForFrame((f) => f.kind === 'presence' && f.role === 'machine' && f.online);
    const from = early.frames.length;
    timers.advance(60_000 + RETIRED_SWEEP_MS);
    await until(
      () =>
        early.frames
          .slice(from)
          .some((f) => f.kind === 'presence' && f.role === 'machine' && !f.online),
      'the machine leaving the old room',
      8000,
    );
    expect(w.log.lines.map((l) => l.code)).toContain('retired-room-left');
  });

  it('E6.5: (revoked at the desk) a revoke cut short after the store but before the secret file finishes at the next start, with the secret the phones were sent', async () => {
    const w = await suite.world();
    const a = await w.phone({ identity: identity('A') });
    await phonesWhere(a, (m) => m.phones.length === 1);
    const b = await w.phone({ identity: identity('B') });
    await phonesWhere(a, (m) => m.phones.length === 2);
    const oldSecret = readFileSync(path.join(w.stateDir, SECRET_FILE), 'utf8');
    // The desk: revoke-phone takes a unique prefix and prints the new pairing code.
    const printed = runDeskLine(w.machine, `revoke-phone ${b.identity!.phoneId.slice(0, 8)}`);
    expect(printed[1]).toBe(`new pairing code: ${w.machine.pairing.code}`);
    // E9: the desk shows each phone's state and key fingerprint.
    expect(runDeskLine(w.machine, 'phones').join('\n')).toMatch(
      /REVOKED {2}[0-9a-f]{4}(-[0-9a-f]{4}){3} {2}B /,
    );
    await moved(a);
    const newRoom = w.machine.pairing.roomId;
    // As if the secret file had never been replaced.
    writeFileSync(path.join(w.stateDir, SECRET_FILE), oldSecret);
    await w.restart();
    expect(w.machine.pairing.roomId).toBe(newRoom);
    expect(w.log.lines.map((l) => l.code)).toContain('revoke-finished');
  });
});
