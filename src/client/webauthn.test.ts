import { describe, expect, it } from 'vitest';
import {
  approvalContentHash,
  decisionChallengeText,
  dispatchContentHash,
  dispatchChallengeText,
  encodeBoxKey,
  makeBoxKeyPair,
  toBase64Url,
  type WebAuthnCredential,
} from '../../protocol/index.ts';
import { makeMemoryKv } from './kv.ts';
import { flush, makeHarness, pairAndJoin, pairingFor, RELAY } from './test-support/harness.ts';
import {
  challengeOf,
  PRESENCE_CREDENTIAL_KEY,
  PRESENCE_FAILURES,
  PresenceError,
  type Authenticator,
} from './webauthn.ts';

const CREDENTIAL: WebAuthnCredential = {
  credentialId: 'Y3JlZC0x',
  publicKey: 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE',
  alg: -7,
  rpId: 'localhost',
  origin: 'http://localhost:4173',
};

/** A software authenticator: records every challenge it was asked to sign. */
function fakeAuthenticator(answer: 'ok' | 'cancel' = 'ok') {
  const challenges: string[] = [];
  const authenticator: Authenticator = {
    available: () => Promise.resolve(true),
    create: () => Promise.resolve(CREDENTIAL),
    assert(credential, challenge) {
      challenges.push(toBase64Url(challenge));
      if (answer === 'cancel')
        return Promise.reject(new PresenceError(PRESENCE_FAILURES.cancelled, 'cancelled'));
      return Promise.resolve({
        credentialId: credential.credentialId,
        authenticatorData: 'YXV0aA',
        clientDataJSON: 'Y2xpZW50',
        signature: 'c2ln',
      });
    },
  };
  return { authenticator, challenges };
}

async function setup(
  options: { answer?: 'ok' | 'cancel'; credential?: boolean; presence?: 'risky' | 'all' } = {},
) {
  const kv = makeMemoryKv(
    options.credential === false ? {} : { [PRESENCE_CREDENTIAL_KEY]: CREDENTIAL },
  );
  const fake = fakeAuthenticator(options.answer);
  const h = makeHarness({ kv, deps: { authenticator: fake.authenticator, phoneName: () => 'P' } });
  await h.client.start();
  // E9: the machine key comes with the code.
  const machineKey = makeBoxKeyPair().publicKey;
  const pairing = pairingFor('laptop', 5, RELAY, machineKey);
  const { m, ws } = await pairAndJoin(h.client, h.sockets, pairing, {
    type: 'machine.status',
    machine: 'laptop',
    pluginVersion: '1',
    boxKey: encodeBoxKey(machineKey),
    capabilities: {
      fullAccessDispatch: true,
      questionForwarding: false,
      approvalRules: false,
      approvalEdit: false,
      interrupt: false,
      phones: true,
      presence: options.presence ?? 'risky',
    },
  });
  m.say(ws, {
    type: 'approval.request',
    approvalId: 'a1',
    sessionId: 's1',
    title: 'Run',
    detail: 'rm -rf build',
    createdAt: 0,
    presence: true,
  });
  m.say(ws, {
    type: 'approval.request',
    approvalId: 'a2',
    sessionId: 's1',
    title: 'Read',
    detail: 'ls',
    createdAt: 0,
  });
  await flush();
  return { ...h, m, ws, fake };
}
const sentOf = (heard: Record<string, unknown>[], type: string) =>
  heard.filter((x) => x.type === type);

describe('E7: verified presence before risky decisions', () => {
  it('E7: an Allow that needs presence asks the authenticator over the text of its own requestId and ts, and carries the assertion', async () => {
    const { client, m, ws, fake } = await setup();
    const result = await client.respondApproval(m.roomId, 'a1', 'allow');
    expect(result.ok).toBe(true);
    const [sent] = sentOf(m.heard(ws), 'approval.respond');
    expect(sent?.presence).toEqual({
      credentialId: CREDENTIAL.credentialId,
      authenticatorData: 'YXV0aA',
      clientDataJSON: 'Y2xpZW50',
      signature: 'c2ln',
    });
    // E9: the room and what the card showed are signed too.
    const text = decisionChallengeText({
      roomId: m.roomId,
      approvalId: 'a1',
      decision: 'allow',
      requestId: sent?.requestId as string,
      ts: sent?.ts as number,
      content: approvalContentHash({ title: 'Run', detail: 'rm -rf build' }),
    });
    expect(fake.challenges).toEqual([toBase64Url(await challengeOf(text ?? ''))]);
  });

  it('E7: a deny never prompts, and an Allow of a request without presence does not either', async () => {
    const { client, m, ws, fake } = await setup();
    await client.respondApproval(m.roomId, 'a1', 'deny');
    await client.respondApproval(m.roomId, 'a2', 'allow');
    expect(fake.challenges).toEqual([]);
    expect(sentOf(m.heard(ws), 'approval.respond').every((x) => !('presence' in x))).toBe(true);
  });

  it('E7: a cancelled check sends nothing and says presence-cancelled; the card can be tried again', async () => {
    const { client, m, ws } = await setup({ answer: 'cancel' });
    expect(await client.respondApproval(m.roomId, 'a1', 'allow')).toEqual({
      ok: false,
      code: 'presence-cancelled',
    });
    expect(sentOf(m.heard(ws), 'approval.respond')).toEqual([]);
    expect(client.state().outbox).toEqual([]);
  });

  it('E7: without a credential the Allow goes without an assertion (the machine answers presence-required)', async () => {
    const { client, m, ws, fake } = await setup({ credential: false });
    await client.respondApproval(m.roomId, 'a1', 'allow');
    expect(fake.challenges).toEqual([]);
    expect(sentOf(m.heard(ws), 'approval.respond')[0]).not.toHaveProperty('presence');
  });

  it('E7: turning presence on registers the credential with the machine in phone.register', async () => {
    const { client, m, ws } = await setup({ credential: false });
    expect(sentOf(m.heard(ws), 'phone.register').at(-1)).not.toHaveProperty('webauthn');
    await client.enablePresence();
    expect(sentOf(m.heard(ws), 'phone.register').at(-1)?.webauthn).toEqual(CREDENTIAL);
    expect(client.state().credential).toEqual(CREDENTIAL);
    await client.disablePresence();
    expect(sentOf(m.heard(ws), 'phone.register').at(-1)).not.toHaveProperty('webauthn');
  });

  it('E7: a full-access dispatch under a presence policy carries an assertion over the dispatch text; a standard one does not', async () => {
    const { client, m, ws, fake } = await setup();
    await client.dispatch(m.roomId, { prompt: 'go', worktree: false, access: 'full' });
    await client.dispatch(m.roomId, { prompt: 'go', worktree: false });
    const [full, standard] = sentOf(m.heard(ws), 'dispatch.request');
    const text = dispatchChallengeText({
      roomId: m.roomId,
      requestId: full?.requestId as string,
      ts: full?.ts as number,
      content: dispatchContentHash({ prompt: 'go', worktree: false, access: 'full' }),
    });
    expect(fake.challenges).toEqual([toBase64Url(await challengeOf(text ?? ''))]);
    expect(full).toHaveProperty('presence');
    expect(standard).not.toHaveProperty('presence');
  });

  it('E7: an allow refused with presence-required or presence-invalid is answered: the card stays and may be tried again', async () => {
    for (const reason of ['presence-required', 'presence-invalid']) {
      const { client, m, ws } = await setup();
      await client.respondApproval(m.roomId, 'a1', 'allow');
      expect(client.state().outbox).toHaveLength(1);
      m.say(ws, { type: 'error', message: 'no', context: 'a1', sessionId: 's1', reason });
      expect(client.state().outbox).toEqual([]);
      const view = client.state().machines[0];
      expect(view?.approvals.a1).toBeDefined();
      expect(view?.errors[0]).toMatchObject({ context: 'a1', reason });
      expect((await client.respondApproval(m.roomId, 'a1', 'allow')).ok).toBe(true);
    }
  });
});
