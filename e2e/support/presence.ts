// E7 in Chromium: the app on `localhost` (an IP address cannot be a WebAuthn RP ID, and this
// origin has its own service worker and IndexedDB, apart from the rest of the suite's) and a
// virtual platform authenticator over DevTools.
import type { CDPSession, Page } from '@playwright/test';
import { APP_PORT } from '../../playwright.config.ts';
import { expect } from './fixtures.ts';

export const LOCALHOST_ORIGIN = `http://localhost:${APP_PORT}`;
/** The RP ID the app registers its credentials under on that origin. */
export const RP_ID = 'localhost';

/** A platform authenticator; `uv: false` is one that cannot verify the user at all. */
async function addAuthenticator(cdp: CDPSession, o: { uv: boolean }) {
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: o.uv,
      ...(o.uv ? { isUserVerified: true } : {}),
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

/** Turns on DevTools' WebAuthn for this page and adds a user-verifying platform authenticator. */
export async function virtualAuthenticator(cdp: CDPSession) {
  await cdp.send('WebAuthn.enable', { enableUI: false });
  return addAuthenticator(cdp, { uv: true });
}

/**
 * Moves this phone's credentials (keys and counters) onto a new authenticator with or without
 * user verification: the same credential then signs without the UV flag, or with it again.
 * The RP ID is set from what the app registered under, not read back: Chromium 150 returns
 * credentials from `getCredentials` without `rpId` and then refuses them in `addCredential`.
 */
export async function swapAuthenticator(cdp: CDPSession, from: string, o: { uv: boolean }) {
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId: from });
  await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: from });
  const authenticatorId = await addAuthenticator(cdp, o);
  for (const credential of credentials)
    await cdp.send('WebAuthn.addCredential', {
      authenticatorId,
      credential: { ...credential, rpId: RP_ID },
    });
  return authenticatorId;
}

/**
 * Runs `body` with this phone's credentials on an authenticator without user verification, then
 * moves them back. A failure of `body` is the one reported: a failing move back is attached to
 * it, never put in its place.
 */
export async function withoutUserVerification(
  cdp: CDPSession,
  authenticatorId: string,
  body: () => Promise<void>,
): Promise<string> {
  const unverified = await swapAuthenticator(cdp, authenticatorId, { uv: false });
  let failure: unknown = undefined;
  try {
    await body();
  } catch (error) {
    failure = error;
  }
  let restored: string;
  try {
    restored = await swapAuthenticator(cdp, unverified, { uv: true });
  } catch (cleanup) {
    if (failure === undefined) throw cleanup;
    throw new AggregateError(
      [failure, cleanup],
      `${String(failure)} (and then: ${String(cleanup)})`,
      {
        cause: failure,
      },
    );
  }
  if (failure !== undefined) throw failure;
  return restored;
}

/** Pairs the app on `localhost` through the paste box; returns when the machine screen shows. */
export async function pairAtLocalhost(page: Page, code: string, machineName: string) {
  await page.goto(`${LOCALHOST_ORIGIN}/#/pair`);
  await page.getByLabel('Pairing code').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: machineName })).toBeVisible();
}

export const PRESENCE_TOGGLE = 'Require fingerprint / face for risky approvals on this phone';
