import { randomBytes, randomUUID } from 'node:crypto';
import { devices, type BrowserContext, type Page } from '@playwright/test';
import {
  decodeBoxKey,
  encodeBoxKey,
  makeBoxKeyPair,
  parsePairing,
  roomKeys,
  sealPhoneRemoved,
  sealRoomRotate,
  toBase64Url,
} from '../protocol/index.ts';
import { APP_ORIGIN } from '../playwright.config.ts';
import { expect, pairByCode, test } from './support/fixtures.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';
import { startMachine, startRelay, type MockMachine, type Relay } from './support/processes.ts';
import { joinRoom, type RoomSocket } from './support/room-socket.ts';
import { readKeyval } from './support/sw.ts';

// E9 (d), (e) and (f) on the phone's side, end to end: the app in Chromium is the owner's phone,
// paired first with the mock machine over the real relay (so it is the approved phone). The
// attacker holds the pairing code and nothing else: from it, the room key, and with that a socket
// in each role of the room — as the machine it can say anything to the owner's phone, as a phone
// it reads what the machine says and asks the machine things. What it knows of the owner's phone
// (its id, its box key) it reads off the wire. One relay, machine and app for the file (serial);
// each test starts with the owner opening the app afresh, so no notice carries over.

test.describe.configure({ mode: 'serial' });

type Message = Record<string, unknown>;
type Stored = {
  roomId: string;
  secret: string;
  machineBoxKey?: string;
  phone?: { phoneId: string; boxPublicKey: string };
};
type Attacker = {
  /** Says what a machine says; the owner's phone sees a frame sealed with the room key. */
  asMachine: RoomSocket;
  /** Reads what the machine says to the room, and asks it things. */
  asPhone: RoomSocket;
  say(message: Message): void;
};

let relay: Relay;
let laptop: MockMachine;
let context: BrowserContext;
let page: Page;
let attacker: Attacker;
let roomId: string;
let codeBoxKey: string;

const pairing = async () => ((await readKeyval(page, 'pairings')) as Stored[] | undefined)?.[0];
/** What a phone sent, unwrapped from its E9 `phone.sealed` (the room key reads it, S alone). */
const inner = (m: Message): Message =>
  m.type === 'phone.sealed' ? (JSON.parse(m.message as string) as Message) : m;
const since = (s: RoomSocket, from: number, match: (m: Message) => boolean) =>
  s.waitForMessage((m) => s.messages.indexOf(m) >= from && match(m));

test.beforeAll(async ({ browser }) => {
  relay = await startRelay();
  laptop = await startMachine({ relay: relay.url, name: 'laptop', appUrl: APP_ORIGIN });
  context = await browser.newContext({ ...devices['Pixel 7'], baseURL: APP_ORIGIN });
  page = await context.newPage();
  await pairByCode(page, laptop.pairingCode, 'laptop');
  await expect.poll(async () => (await pairing())?.phone?.phoneId).toBeTruthy();

  const code = parsePairing(laptop.pairingCode);
  if (!code.ok || code.value.boxKey === undefined) throw new Error('an E9 code with a boxKey');
  // The code carries it base64url; the pairing store keeps it as the wire spells it (base64).
  codeBoxKey = encodeBoxKey(Uint8Array.from(Buffer.from(code.value.boxKey, 'base64url')));
  const keys = roomKeys(code.value.secretBytes);
  roomId = keys.roomId;
  const asMachine = await joinRoom(relay.url, roomId, 'machine', keys.key);
  const asPhone = await joinRoom(relay.url, roomId, 'phone', keys.key);
  attacker = {
    asMachine,
    asPhone,
    say: (message) => asMachine.sendMessage({ v: 1, ts: Date.now(), ...message }),
  };
});

test.afterAll(async () => {
  await attacker?.asMachine.close();
  await attacker?.asPhone.close();
  await context?.close();
  await laptop?.stop();
  await relay?.stop();
});

/**
 * The owner opens the app afresh on `hash`. Resolves with the `phone.register` it sent once its
 * socket was in the room, as the attacker's machine socket read it: the owner's id and box key.
 */
async function ownerOpens(hash: string): Promise<{ phoneId: string; boxKey: Uint8Array }> {
  await nav(page, hash);
  const from = attacker.asMachine.messages.length;
  await page.reload();
  const register = inner(
    await since(
      attacker.asMachine,
      from,
      (m) => m.type === 'phone.sealed' && inner(m).type === 'phone.register',
    ),
  );
  const boxKey = decodeBoxKey(String(register.boxKey));
  if (boxKey === null) throw new Error('the register carries a box key');
  return { phoneId: String(register.phoneId), boxKey };
}

/** The owner's pairing, as it must stay: the code's room, secret and machine key. */
async function expectPairingKept(before: Stored | undefined) {
  expect(before?.machineBoxKey).toBe(codeBoxKey);
  expect(await pairing()).toMatchObject({
    roomId: before?.roomId,
    secret: before?.secret,
    machineBoxKey: codeBoxKey,
    phone: { phoneId: before?.phone?.phoneId },
  });
}

test('E9 (d): a forged phone-revoked error, a phones list saying revoked, and a revoked-echo register with a phone.removed boxed by another key each leave the owner’s pairing — a notice shows, and IndexedDB still holds it after a reload', async () => {
  const kept = await pairing();
  const notice = page
    .getByRole('status')
    .filter({ hasText: 'laptop said this phone was removed, but without the machine’s proof' });
  const removed = page.getByRole('alert').filter({ hasText: 'This phone was removed from laptop' });
  const theirs = makeBoxKeyPair();

  const forgeries: Array<(me: { phoneId: string; boxKey: Uint8Array }) => Promise<void>> = [
    async () =>
      attacker.say({
        type: 'error',
        message: 'this phone was removed from the machine',
        context: 'phone.register',
        reason: 'phone-revoked',
      }),
    async (me) => {
      // The machine's own list, as the attacker read it, with the owner's phone marked revoked.
      const real = await attacker.asPhone.waitForMessage(
        (m) => m.type === 'phones' && (m.phones as Message[]).some((p) => p.phoneId === me.phoneId),
      );
      attacker.say({
        type: 'phones',
        phones: (real.phones as Message[]).map((p) =>
          p.phoneId === me.phoneId ? { ...p, revoked: true } : p,
        ),
      });
    },
    async (me) => {
      // The echo: a plain register naming the owner's id. The machine answers the room with
      // identity-required (E9.8), never a room-wide phone-revoked; then a removal the attacker
      // boxed with its own key (E9.16) — the frame after the answer on the owner's socket.
      const from = attacker.asPhone.messages.length;
      attacker.asPhone.sendMessage({
        v: 1,
        ts: Date.now(),
        type: 'phone.register',
        requestId: randomUUID(),
        phoneId: me.phoneId,
        name: 'Pixel 7 · Chrome',
        boxKey: encodeBoxKey(theirs.publicKey),
      });
      const answer = await since(
        attacker.asPhone,
        from,
        (m) => m.type === 'error' && m.context === 'phone.register',
      );
      expect(answer.reason).toBe('identity-required');
      expect(
        attacker.asPhone.messages
          .slice(from)
          .filter((m) => m.type === 'error' && m.reason === 'phone-revoked'),
      ).toEqual([]);
      attacker.say({
        type: 'phone.removed',
        phoneId: me.phoneId,
        box: sealPhoneRemoved(me.phoneId, me.boxKey, theirs.secretKey),
      });
    },
  ];
  for (const forge of forgeries) {
    const me = await ownerOpens('#/');
    expect(me.phoneId).toBe(kept?.phone?.phoneId);
    await expect(notice).toHaveCount(0);
    await forge(me);
    await expect(notice).toBeVisible();
    await expect(removed).toHaveCount(0);
    await expectPairingKept(kept);
  }

  // After a reload the app still holds the pairing, joins the same room and the machine still
  // lists it approved.
  const from = attacker.asPhone.messages.length;
  const me = await ownerOpens('#/');
  await expectPairingKept(kept);
  const listed = await since(
    attacker.asPhone,
    from,
    (m) => m.type === 'phones' && (m.phones as Message[]).some((p) => p.phoneId === me.phoneId),
  );
  expect((listed.phones as Message[]).find((p) => p.phoneId === me.phoneId)).toMatchObject({
    revoked: false,
    state: 'approved',
  });
});

test('E9 (e): a machine.status carrying another box key does not divert the owner’s phone — the key stays the code’s, a rotate boxed by that key is shown as unopenable, and the phone never joins the attacker’s room', async () => {
  const kept = await pairing();
  const from = attacker.asPhone.messages.length;
  const me = await ownerOpens('#/');
  const status = await since(attacker.asPhone, from, (m) => m.type === 'machine.status');
  // The room the attacker would move the owner to, on the same relay: it waits there as machine.
  const elsewhere = new Uint8Array(randomBytes(32));
  const trapKeys = roomKeys(elsewhere);
  const trap = await joinRoom(relay.url, trapKeys.roomId, 'machine', trapKeys.key);
  try {
    const theirs = makeBoxKeyPair();
    attacker.say({ ...status, ts: Date.now(), boxKey: encodeBoxKey(theirs.publicKey) });
    attacker.say({
      type: 'room.rotate',
      phoneId: me.phoneId,
      box: sealRoomRotate(
        { secret: toBase64Url(elsewhere), relay: relay.url },
        me.boxKey,
        theirs.secretKey,
      ),
    });
    await expect(
      page.getByRole('alert').filter({
        hasText: 'laptop moved to a new key, but this phone could not open it (auth-failed)',
      }),
    ).toBeVisible();
    await expectPairingKept(kept);

    // Opened again, the app registers in the code's room (the attacker's machine socket there
    // reads it) and IndexedDB holds the code's key; nothing of the phone ever reached the trap.
    await ownerOpens('#/');
    await expectPairingKept(kept);
    expect(trap.frames.filter((f) => f.kind === 'presence' && f.role === 'phone')).toEqual([]);
    expect(trap.messages).toEqual([]);
  } finally {
    await trap.close();
  }
});

test('E9 (f): an approval id reused with other content is refused and shown — the card keeps the real request, Allow is blocked and nothing is sent for it; Deny still reaches the machine', async () => {
  await ownerOpens('#/new');
  const from = attacker.asPhone.messages.length;
  await page.getByLabel('Prompt').fill('run: mkdir -p e9-f-real');
  await page.getByRole('button', { name: 'Start session' }).click();
  const real = await since(
    attacker.asPhone,
    from,
    (m) => m.type === 'approval.request' && String(m.detail).includes('mkdir -p e9-f-real'),
  );
  const approvalId = String(real.approvalId);
  await nav(page, `#/m/${roomId}/s/${String(real.sessionId)}/approval/${approvalId}`);
  const card = page.locator(`#approval-${approvalId}`);
  await expect(card.locator('.detail')).toContainText('mkdir -p e9-f-real');

  // The attacker, as the machine, shows the same id with harmless text.
  attacker.say({
    ...real,
    ts: Date.now(),
    detail: String(real.detail).replace('mkdir -p e9-f-real', 'ls'),
    ...(real.editable === undefined
      ? {}
      : { editable: { ...(real.editable as Message), value: 'ls' } }),
  });
  await expect(
    card
      .getByRole('alert')
      .filter({ hasText: 'this request was sent a second time with different content' }),
  ).toBeVisible();
  await expect(card.locator('.detail')).toContainText('mkdir -p e9-f-real');

  await card.getByRole('button', { name: ALLOW_RUN }).click();
  await expect(
    card.getByRole('alert').filter({ hasText: 'Allow is blocked: deny it or decide at the desk.' }),
  ).toBeVisible();
  await card.getByRole('button', { name: /^Deny: / }).click();
  const responses = () =>
    attacker.asMachine.messages
      .map(inner)
      .filter((m) => m.type === 'approval.respond' && m.approvalId === approvalId);
  // The deny went out after the refused Allow on the same socket: had the Allow sent anything,
  // it would be before it.
  await expect.poll(() => responses().length).toBeGreaterThan(0);
  expect(responses().map((m) => m.decision)).toEqual(['deny']);
  const closed = await attacker.asPhone.waitForMessage(
    (m) => m.type === 'approval.closed' && m.approvalId === approvalId,
  );
  expect(closed.resolution).toBe('deny');
});
