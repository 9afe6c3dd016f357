import { randomUUID } from 'node:crypto';
import { devices, type BrowserContext, type CDPSession, type Page } from '@playwright/test';
import { parsePairing, phoneAuthorityChallengeText, roomKeys } from '../protocol/index.ts';
import { makeSoftAuthenticator } from '../testkit/webauthn.ts';
import { APP_ORIGIN } from '../playwright.config.ts';
import { untilMachineKnowsApp } from './support/app-phone.ts';
import { makeE6Phone, type E6Phone } from './support/e6-phone.ts';
import { expect, expectAccessible, test } from './support/fixtures.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';
import {
  LOCALHOST_ORIGIN,
  PRESENCE_TOGGLE,
  pairAtLocalhost,
  withoutUserVerification,
  virtualAuthenticator,
} from './support/presence.ts';
import { startMachine, startRelay, type MockMachine, type Relay } from './support/processes.ts';
import { tapRelay, type RelayTap } from './support/relay-tap.ts';
import { readKeyval, writeKeyval } from './support/sw.ts';

// E7's refusals in the browser, against the mock machine (`--require-presence all`, full access
// allowed) over the real relay, with Chromium's virtual authenticator. One relay, machine and app
// for the file (serial): the app with presence on, and test phone A (e2e/support/e6-phone.ts),
// which starts the sessions and, holding the room secret as an attacker would, replays what the
// app sent. What the app sent is read off its own socket (e2e/support/relay-tap.ts): the real
// assertion Chromium made for a real tap, not one the test built.

test.describe.configure({ mode: 'serial' });

type Message = Record<string, unknown>;
let relay: Relay;
let laptop: MockMachine;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let authenticatorId: string;
let tap: RelayTap;
let a: E6Phone;
let roomId: string;

test.beforeAll(async ({ browser }) => {
  relay = await startRelay();
  laptop = await startMachine({
    relay: relay.url,
    name: 'laptop',
    appUrl: APP_ORIGIN,
    allowFullAccess: true,
    args: ['--require-presence', 'all'],
  });
  const pairing = parsePairing(laptop.pairingCode);
  if (!pairing.ok) throw new Error(pairing.message);
  const keys = roomKeys(pairing.value.secretBytes);
  roomId = keys.roomId;
  context = await browser.newContext({ ...devices['Pixel 7'] });
  page = await context.newPage();
  tap = await tapRelay(page, relay.url, new Map([[roomId, keys.key]]));
  cdp = await context.newCDPSession(page);
  authenticatorId = await virtualAuthenticator(cdp);
  await pairAtLocalhost(page, laptop.pairingCode, 'laptop');
  await nav(page, '#/settings');
  await page.getByRole('checkbox', { name: PRESENCE_TOGGLE }).check();
  await expect(
    page.getByText('On: risky approvals ask for your fingerprint or face.'),
  ).toBeVisible();
  // E9: A pairs after the app, so it waits until the app lets it in — under `all`, with the
  // owner's fingerprint / face over "phone.approve <A>".
  await untilMachineKnowsApp(page, roomId);
  a = await makeE6Phone(relay.url, laptop.pairingCode, 'Test phone A');
  await page.getByRole('button', { name: 'Approve Test phone A' }).click();
  await a.untilApproved();
});

test.afterAll(async () => {
  await a?.close();
  await context?.close();
  await laptop?.stop();
  await relay?.stop();
});

const received = (match: (m: Message) => boolean) => a.socket().waitForMessage(match);
const closedOf = (approvalId: string) =>
  a.socket().messages.filter((m) => m.type === 'approval.closed' && m.approvalId === approvalId);

/** Test phone A starts a session whose commands each ask an approval; returns its id. */
async function runSession(...dirs: string[]): Promise<string> {
  const requestId = randomUUID();
  a.send({
    type: 'dispatch.request',
    requestId,
    phoneId: a.phoneId,
    prompt: dirs.map((d) => `run: mkdir -p ${d}`).join('\n'),
    cwd: laptop.root,
    worktree: false,
  });
  const result = await received((m) => m.type === 'dispatch.result' && m.requestId === requestId);
  expect(result.ok).toBe(true);
  return String(result.sessionId);
}

/** The n-th approval (1-based) of the session, once the machine asked it. */
async function nthApproval(sessionId: string, n: number): Promise<string> {
  const ids = () => [
    ...new Set(
      a
        .socket()
        .messages.filter((m) => m.type === 'approval.request' && m.sessionId === sessionId)
        .map((m) => String(m.approvalId)),
    ),
  ];
  await expect.poll(() => ids().length).toBeGreaterThanOrEqual(n);
  return ids()[n - 1]!;
}

/** Opens the card on `on` and taps Allow; a verified Allow then closes it at the machine. */
async function allowOn(on: Page, sessionId: string, approvalId: string) {
  await nav(on, `#/m/${roomId}/s/${sessionId}/approval/${approvalId}`);
  await on.getByRole('button', { name: ALLOW_RUN }).click();
}
const allowed = (approvalId: string) =>
  received(
    (m) => m.type === 'approval.closed' && m.approvalId === approvalId && m.resolution === 'allow',
  );

test('A7: Settings › Security with presence on and Machine › Phones pass axe', async () => {
  await nav(page, '#/settings');
  await expectAccessible(page, 'settings with presence on');
  await nav(page, `#/m/${roomId}/phones`);
  const rows = page.getByRole('list', { name: 'Phones' }).getByRole('listitem');
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'This phone' })).toContainText('Fingerprint / face on');
  await expectAccessible(page, 'machine phones');
});

test('E7.4: a replayed assertion is refused — the same bytes under a new requestId fail the challenge; the same requestId again decides nothing twice', async () => {
  const sessionId = await runSession('replay-one', 'replay-two');
  const first = await nthApproval(sessionId, 1);
  await allowOn(page, sessionId, first);
  await allowed(first);
  const sent = tap.sent.find(
    (t) => t.message.type === 'approval.respond' && t.message.approvalId === first,
  )!;
  expect(sent.message.presence).toBeDefined();
  const second = await nthApproval(sessionId, 2);

  // A holder of the room secret reseals the app's assertion under a new requestId for the open
  // approval: the challenge the machine recomputes differs, so the approval stays pending.
  // (E9: it can only send it as its own phone — claiming the app's id is identity-required.)
  a.send({ ...sent.message, phoneId: a.phoneId, requestId: randomUUID(), approvalId: second });
  await received(
    (m) => m.type === 'error' && m.context === second && m.reason === 'presence-invalid',
  );
  // The app's frame again, byte for byte, over its own connection; then its requestId aimed at
  // the open approval. D10: the first result comes back each time and nothing is decided again.
  tap.resend(sent.raw);
  a.send({ ...sent.message, phoneId: a.phoneId, approvalId: second });
  await expect.poll(() => closedOf(first).length).toBe(3);
  expect(closedOf(second)).toEqual([]);

  // The owner's own Allow of that approval still works.
  await allowOn(page, sessionId, second);
  await allowed(second);
});

test('E7.2: a profile holding a copy of the pairing record but not the credential cannot allow (presence-required); the card stays open on the phone that holds it', async ({
  browser,
}) => {
  const sessionId = await runSession('copied');
  const id = await nthApproval(sessionId, 1);
  const copy = await browser.newContext({ ...devices['Pixel 7'] });
  try {
    const other = await copy.newPage();
    await other.goto(`${LOCALHOST_ORIGIN}/#/`);
    // The whole pairing record: secret, phoneId and box key pair — only the credential stays
    // behind, in the first profile's authenticator.
    await writeKeyval(other, 'pairings', await readKeyval(page, 'pairings'));
    await other.reload();
    await allowOn(other, sessionId, id);
    await expect(
      other
        .getByRole('alert')
        .filter({ hasText: 'Confirm it’s you (fingerprint or face) to allow this.' }),
    ).toBeVisible();
    await received(
      (m) => m.type === 'error' && m.context === id && m.reason === 'presence-required',
    );
  } finally {
    await copy.close();
  }
  expect(closedOf(id)).toEqual([]);
  await allowOn(page, sessionId, id);
  await allowed(id);
});

test('E7.1: a full-access dispatch needs presence — from the app it asks the authenticator and runs; the same credential without user verification is refused with presence-invalid', async () => {
  const dispatchFull = async () => {
    await nav(page, '#/new');
    await page.getByLabel('Full access (danger)').check();
    await page.getByLabel('Prompt').fill('say: careful');
    await page.getByLabel('Type FULL to confirm').fill('FULL');
    await page.getByRole('button', { name: 'Start session' }).click();
  };
  const fullDispatches = () =>
    tap.sent.filter((t) => t.message.type === 'dispatch.request' && t.message.access === 'full');

  await dispatchFull();
  await expect(page.getByText('Full access', { exact: true })).toBeVisible();
  expect(fullDispatches()).toHaveLength(1);
  expect(fullDispatches()[0]!.message.presence).toBeDefined();

  authenticatorId = await withoutUserVerification(cdp, authenticatorId, async () => {
    await dispatchFull();
    await expect(
      page.getByText(
        'The machine refused: The fingerprint or face check could not be verified. Try again.',
      ),
    ).toBeVisible();
    const refused = fullDispatches()[1]!.message;
    expect(refused.presence).toBeDefined();
    await received(
      (m) =>
        m.type === 'dispatch.result' &&
        m.requestId === refused.requestId &&
        m.ok === false &&
        m.reason === 'presence-invalid',
    );
  });
});

test("E7.3: a revoked phone's credential is refused with phone-revoked, even sent by a phone that is not revoked", async () => {
  const sessionId = await runSession('revoked');
  const id = await nthApproval(sessionId, 1);
  // The app's verified Allow stops at the tap: the machine never sees it, so it is still fresh.
  tap.hold((m) => m.type === 'approval.respond' && m.approvalId === id);
  await allowOn(page, sessionId, id);
  await expect.poll(() => tap.held.length).toBe(1);
  const assertion = tap.held[0]!.message;
  expect(assertion.presence).toBeDefined();

  // A revokes the app's phone (E9: under `all` with A's own presence over "phone.revoke
  // <app>") and follows the machine to the new room.
  const soft = makeSoftAuthenticator({ origin: LOCALHOST_ORIGIN });
  a.setCredential(soft.credential);
  await received(
    (m) =>
      m.type === 'phones' &&
      (m.phones as { phoneId: string; presence: boolean }[]).some(
        (p) => p.phoneId === a.phoneId && p.presence,
      ),
  );
  const revokeId = randomUUID();
  const ts = Date.now();
  const text = phoneAuthorityChallengeText({
    roomId: a.roomId(),
    action: 'phone.revoke',
    target: String(assertion.phoneId),
    requestId: revokeId,
    ts,
  })!;
  a.send({
    type: 'phone.revoke',
    requestId: revokeId,
    ts,
    phoneId: assertion.phoneId,
    presence: soft.assert(text),
  });
  await a.follow();
  // A sends the app's untouched assertion as its own action (its phoneId, the app's requestId,
  // ts and presence): only the credential says whose it is, and that phone is revoked.
  a.send({ ...assertion, phoneId: a.phoneId });
  await received((m) => m.type === 'error' && m.context === id && m.reason === 'phone-revoked');
  await expect.poll(() => laptop.deskLines(/presence-revoked/).length).toBe(1);
  expect(closedOf(id)).toEqual([]);
});
