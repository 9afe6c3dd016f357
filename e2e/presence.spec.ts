import { randomUUID } from 'node:crypto';
import { parsePairing, roomKeys } from '../protocol/index.ts';
import { expect, test } from './support/fixtures.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';
import {
  PRESENCE_TOGGLE,
  pairAtLocalhost,
  swapAuthenticator,
  virtualAuthenticator,
} from './support/presence.ts';
import { untilMachineKnowsApp } from './support/app-phone.ts';
import { makeE6Phone } from './support/e6-phone.ts';

// E7 in the app against the mock machine (`--require-presence all`) with Chromium's virtual
// platform authenticator over DevTools, on `localhost` (e2e/support/presence.ts says why).

test('E7: a verified Allow is accepted; a failed check sends nothing; an assertion without user verification is refused with presence-invalid, an Allow without one with presence-required, both on the card; no authenticator is said plainly', async ({
  page,
  context,
  machine,
  relay,
}) => {
  const laptop = await machine('laptop', { args: ['--require-presence', 'all'] });
  const cdp = await context.newCDPSession(page);
  const authenticatorId = await virtualAuthenticator(cdp);
  await pairAtLocalhost(page, laptop.pairingCode, 'laptop');

  // Settings › Security: on creates the credential and registers it with the machine.
  await nav(page, '#/settings');
  const toggle = page.getByRole('checkbox', { name: PRESENCE_TOGGLE });
  await toggle.check();
  await expect(
    page.getByText('On: risky approvals ask for your fingerprint or face.'),
  ).toBeVisible();

  // A session with three commands, each an approval that needs presence under `all`.
  const parsed = parsePairing(laptop.pairingCode);
  if (!parsed.ok) throw new Error(parsed.message);
  const { roomId } = roomKeys(parsed.value.secretBytes);
  // E9: a second phone pairs after the app and waits; the app lets it in (under `all`, with the
  // owner's fingerprint / face over "phone.approve <it>"). It starts the session the app decides.
  await untilMachineKnowsApp(page, roomId);
  const a = await makeE6Phone(relay.url, laptop.pairingCode, 'Test phone A');
  await page.getByRole('button', { name: 'Approve Test phone A' }).click();
  const phone = a.socket();
  await a.untilApproved();
  const requestId = randomUUID();
  a.send({
    type: 'dispatch.request',
    requestId,
    prompt: 'run: mkdir -p one\nrun: mkdir -p two',
    cwd: laptop.root,
    worktree: false,
  });
  const result = await phone.waitForMessage(
    (m) => m.type === 'dispatch.result' && m.requestId === requestId,
  );
  const sessionId = String(result.sessionId);
  const approval = async (n: number) => {
    await expect
      .poll(
        () =>
          new Set(
            phone.messages.filter((m) => m.type === 'approval.request').map((m) => m.approvalId),
          ).size,
      )
      .toBeGreaterThanOrEqual(n);
    const ids = [
      ...new Set(
        phone.messages
          .filter((m) => m.type === 'approval.request')
          .map((m) => String(m.approvalId)),
      ),
    ];
    const id = ids[n - 1]!;
    expect(phone.messages.find((m) => m.approvalId === id)?.presence).toBe(true);
    await nav(page, `#/m/${roomId}/s/${sessionId}/approval/${id}`);
    return id;
  };
  const allow = () => page.getByRole('button', { name: ALLOW_RUN });

  // 1. Verified: the machine accepts the assertion and the card closes as allowed.
  const first = await approval(1);
  await expect(page.getByText('Allow asks for your fingerprint or face.')).toBeVisible();
  await allow().click();
  await phone.waitForMessage(
    (m) => m.type === 'approval.closed' && m.approvalId === first && m.resolution === 'allow',
  );

  // 2. User verification fails on this phone: Chromium's authenticator refuses, nothing is sent.
  const second = await approval(2);
  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
  await allow().click();
  await expect(
    page.getByText('The fingerprint or face check was cancelled or failed; nothing was sent.'),
  ).toBeVisible();
  // The same credential on an authenticator that cannot verify the user at all: its assertion
  // reaches the machine without the UV flag → presence-invalid, and the card stays pending.
  await swapAuthenticator(cdp, authenticatorId, { uv: false });
  await allow().click();
  await expect(
    page
      .getByRole('alert')
      .filter({ hasText: 'The fingerprint or face check could not be verified. Try again.' }),
  ).toBeVisible();

  // 3. Presence off on this phone: the Allow goes without an assertion → presence-required.
  await nav(page, '#/settings');
  await toggle.uncheck();
  // The authenticator left on this phone cannot verify a user: Settings says so plainly.
  await expect(
    page.getByText(
      'This phone or browser has no fingerprint or face unlock that apps can use, so this cannot be turned on here.',
    ),
  ).toBeVisible();
  await expect(toggle).toBeDisabled();
  await nav(page, `#/m/${roomId}/s/${sessionId}/approval/${second}`);
  await allow().click();
  await expect(
    page
      .getByRole('alert')
      .filter({ hasText: 'Confirm it’s you (fingerprint or face) to allow this.' }),
  ).toBeVisible();
  expect(phone.messages.some((m) => m.type === 'approval.closed' && m.approvalId === second)).toBe(
    false,
  );
  await a.close();
});
