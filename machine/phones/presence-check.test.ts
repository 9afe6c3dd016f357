import { describe, expect, it } from 'vitest';
import {
  approvalContentHash,
  decisionChallengeText,
  WEBAUTHN_ALGS,
  type WebAuthnAlg,
} from '../../protocol/index.ts';
import { readFileSync } from 'node:fs';
import { challengeFor, checkAssertion } from './presence-check.ts';
import { keyPairFor, makeSoftAuthenticator } from '../../testkit/webauthn.ts';

// E7.3 with real key pairs made in the test and assertions built byte for byte.

const challenge = (decision: 'allow' | 'deny', requestId: string) =>
  decisionChallengeText({
    roomId: 'room-1',
    approvalId: 'a-1',
    decision,
    requestId,
    ts: 1767225600000,
    content: approvalContentHash({ title: 'Run', detail: 'ls' }),
  })!;
const text = challenge('allow', 'r-1');

describe('E7.3: checkAssertion (node:crypto)', () => {
  it.each(Object.entries(WEBAUTHN_ALGS))(
    'E7.3: a verified assertion made with %s passes and returns its counter',
    (_name, alg) => {
      const auth = makeSoftAuthenticator({ alg: alg as WebAuthnAlg });
      const r = checkAssertion(auth.assert(text, { counter: 7 }), text, auth.credential, 3);
      expect(r).toEqual({ ok: true, signCount: 7 });
    },
  );

  it('E7.3: the challenge is base64url(SHA-256(text)) for every case of protocol/vectors/presence.json', () => {
    const file = new URL('../../protocol/vectors/presence.json', import.meta.url);
    const { cases } = JSON.parse(readFileSync(file, 'utf8')) as {
      cases: { text: string; challenge: string }[];
    };
    expect(cases.length).toBeGreaterThan(1);
    for (const c of cases) expect(challengeFor(c.text)).toBe(c.challenge);
  });

  const auth = makeSoftAuthenticator();
  const cases: [string, () => ReturnType<typeof checkAssertion>, string][] = [
    [
      'user verification off (UV)',
      () => checkAssertion(auth.assert(text, { uv: false }), text, auth.credential, 0),
      'user-not-verified',
    ],
    [
      'user presence off (UP)',
      () => checkAssertion(auth.assert(text, { up: false }), text, auth.credential, 0),
      'user-not-present',
    ],
    [
      'a challenge for another decision (deny signed, allow sent)',
      () => checkAssertion(auth.assert(challenge('deny', 'r-1')), text, auth.credential, 0),
      'wrong-challenge',
    ],
    [
      'the same bytes under a new requestId',
      () => checkAssertion(auth.assert(text), challenge('allow', 'r-2'), auth.credential, 0),
      'wrong-challenge',
    ],
    [
      'another origin',
      () =>
        checkAssertion(
          auth.assert(text, { origin: 'https://evil.example' }),
          text,
          auth.credential,
          0,
        ),
      'wrong-origin',
    ],
    [
      'a create, not a get',
      () =>
        checkAssertion(auth.assert(text, { type: 'webauthn.create' }), text, auth.credential, 0),
      'wrong-type',
    ],
    [
      'another RP ID',
      () => checkAssertion(auth.assert(text, { rpId: 'evil.example' }), text, auth.credential, 0),
      'wrong-rp-id',
    ],
    [
      'a cross-origin frame',
      () => checkAssertion(auth.assert(text, { crossOrigin: true }), text, auth.credential, 0),
      'cross-origin',
    ],
    [
      'a counter that did not rise',
      () => checkAssertion(auth.assert(text, { counter: 5 }), text, auth.credential, 5),
      'counter-not-rising',
    ],
    [
      'a counter of zero after a non-zero one',
      () => checkAssertion(auth.assert(text, { counter: 0 }), text, auth.credential, 5),
      'counter-not-rising',
    ],
    [
      'a signature by another key (a copied secret without the credential)',
      () =>
        checkAssertion(
          auth.assert(text, { key: keyPairFor(WEBAUTHN_ALGS.ES256).privateKey }),
          text,
          auth.credential,
          0,
        ),
      'bad-signature',
    ],
    [
      'another credential id',
      () =>
        checkAssertion({ ...auth.assert(text), credentialId: 'AAAA' }, text, auth.credential, 0),
      'wrong-credential',
    ],
    [
      'a registered key of another algorithm than announced',
      () =>
        checkAssertion(
          auth.assert(text),
          text,
          { ...auth.credential, alg: WEBAUTHN_ALGS.EdDSA },
          0,
        ),
      'bad-public-key',
    ],
    [
      'clientDataJSON that is not JSON',
      () =>
        checkAssertion(
          { ...auth.assert(text), clientDataJSON: Buffer.from('nope').toString('base64url') },
          text,
          auth.credential,
          0,
        ),
      'bad-client-data',
    ],
    [
      'authenticatorData cut short',
      () => {
        const a = auth.assert(text);
        const short = Buffer.from(a.authenticatorData, 'base64url').subarray(0, 36);
        return checkAssertion(
          { ...a, authenticatorData: short.toString('base64url') },
          text,
          auth.credential,
          0,
        );
      },
      'bad-authenticator-data',
    ],
    [
      'one flipped bit in the signed data',
      () => {
        const a = auth.assert(text);
        const d = Buffer.from(a.authenticatorData, 'base64url');
        d[36]! ^= 0x01; // the counter's last byte: still rising, no longer signed
        return checkAssertion(
          { ...a, authenticatorData: d.toString('base64url') },
          text,
          auth.credential,
          0,
        );
      },
      'bad-signature',
    ],
  ];
  it.each(cases)('E7.3: refused: %s', (_what, run, code) => {
    expect(run()).toMatchObject({ ok: false, code });
  });

  it('E7.3: a counter of zero on both sides (an authenticator that keeps none) passes', () => {
    const r = checkAssertion(auth.assert(text, { counter: 0 }), text, auth.credential, 0);
    expect(r).toEqual({ ok: true, signCount: 0 });
  });
});
