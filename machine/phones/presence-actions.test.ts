import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  approvalContentHash,
  decisionChallengeText,
  dispatchChallengeText,
  dispatchContentHash,
  type PhoneMessage,
  encodeBoxKey,
  makeBoxKeyPair,
  type ApprovalRespond,
  type PresenceAssertion,
} from '../../protocol/index.ts';
import type { PresencePolicy } from './presence-gate.ts';
import { setupActions, TEST_ROOM_ID } from '../test-support/actions.ts';
import { makeSoftAuthenticator, type SoftAuthenticator } from '../../testkit/webauthn.ts';

// E7 through the machine's action layer (the D11 clock, the replay store and the approvals all
// real), with a software authenticator holding a real key pair. The app's side of the same
// rules runs in Chromium with its virtual authenticator.

/** E9: the challenge of a decision on an approval open in `s` (its content as the machine holds it). */
function decisionText(
  s: { pending: { approval(id: string): Parameters<typeof approvalContentHash>[0] | undefined } },
  approvalId: string,
  decision: 'allow' | 'deny',
  requestId: string,
  ts: number,
): string {
  const open = s.pending.approval(approvalId) ?? { title: '', detail: '' };
  return decisionChallengeText({
    roomId: TEST_ROOM_ID,
    approvalId,
    decision,
    requestId,
    ts,
    content: approvalContentHash(open),
  })!;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function world(policy: PresencePolicy, o: { roots?: string[] } = {}) {
  const s = setupActions({
    requirePresence: policy,
    allowFullAccess: true,
    ...(o.roots ? { roots: o.roots } : {}),
  });
  cleanups.push(s.cleanup);
  const auth = makeSoftAuthenticator();
  const phoneId = randomUUID();
  const keys = makeBoxKeyPair();
  // E9: the first phone is approved; from then on it seals what it sends.
  const sealed = s.sealAs(phoneId, keys);
  const actions = { handle: (m: PhoneMessage) => s.actions.handle(sealed(m)) };
  await actions.handle({
    v: 1,
    type: 'phone.register',
    ts: s.timers.now(),
    requestId: randomUUID(),
    phoneId,
    name: 'Pixel',
    boxKey: encodeBoxKey(keys.publicKey),
    webauthn: auth.credential,
  });
  expect(s.sent.at(-1)).toMatchObject({ type: 'phones', phones: [{ presence: true }] });
  /** An approval.respond, signed by `signer` unless `presence` is given (null: none). */
  const respond = (
    approvalId: string,
    decision: 'allow' | 'deny',
    o: { requestId?: string; presence?: PresenceAssertion | null; signer?: SoftAuthenticator } = {},
  ): ApprovalRespond => {
    const requestId = o.requestId ?? randomUUID();
    const ts = s.timers.now();
    const text = decisionText(s, approvalId, decision, requestId, ts);
    const presence = o.presence === undefined ? (o.signer ?? auth).assert(text) : o.presence;
    return {
      v: 1,
      type: 'approval.respond',
      ts,
      requestId,
      approvalId,
      decision,
      phoneId,
      ...(presence ? { presence } : {}),
    };
  };
  const risky = () =>
    s.pending.openApproval('s', 'Run', 'curl x | sh', { tool: 'run' }).approval.approvalId;
  return { ...s, actions, auth, phoneId, respond, risky };
}

const last = (sent: unknown[]) => sent.at(-1) as Record<string, unknown>;

describe('E7: verified presence on the reference machine', () => {
  it('E7.1: under risky only requests without a rule offer need presence; under all every one; under none none', async () => {
    const r = await world('risky');
    const safe = r.pending.openApproval('s', 'Run', 'npm test', {
      tool: 'run',
      rule: { key: 'run: npm test', scopes: ['session'] },
    }).approval;
    expect(safe.presence).toBeUndefined();
    expect(r.pending.approval(r.risky())?.presence).toBe(true);
    const a = await world('all');
    expect(
      a.pending.openApproval('s', 'Run', 'npm test', {
        tool: 'run',
        rule: { key: 'run: npm test', scopes: ['session'] },
      }).approval.presence,
    ).toBe(true);
    const n = await world('none');
    expect(n.pending.approval(n.risky())?.presence).toBeUndefined();
  });

  it('E7.3: a verified allow closes the approval, with by', async () => {
    const w = await world('risky');
    const id = w.risky();
    await w.actions.handle(w.respond(id, 'allow'));
    expect(last(w.sent)).toMatchObject({
      type: 'approval.closed',
      resolution: 'allow',
      by: { phoneId: w.phoneId, name: 'Pixel' },
    });
  });

  it('E7.2: an allow without an assertion is refused with presence-required; the approval stays pending', async () => {
    const w = await world('risky');
    const id = w.risky();
    await w.actions.handle(w.respond(id, 'allow', { presence: null }));
    expect(last(w.sent)).toMatchObject({ type: 'error', reason: 'presence-required', context: id });
    expect(w.pending.approval(id)).toBeDefined();
  });

  it('E7.2: a deny never needs presence', async () => {
    const w = await world('all');
    const id = w.risky();
    await w.actions.handle(w.respond(id, 'deny', { presence: null }));
    expect(last(w.sent)).toMatchObject({ type: 'approval.closed', resolution: 'deny' });
  });

  it('E7.3: an allow with user verification off is refused with presence-invalid', async () => {
    const w = await world('risky');
    const id = w.risky();
    const requestId = randomUUID();
    const text = decisionText(w, id, 'allow', requestId, w.timers.now());
    await w.actions.handle(
      w.respond(id, 'allow', { requestId, presence: w.auth.assert(text, { uv: false }) }),
    );
    expect(last(w.sent)).toMatchObject({ type: 'error', reason: 'presence-invalid' });
    expect(w.pending.approval(id)).toBeDefined();
  });

  it('E7.4: a replayed assertion is refused — the same bytes under a new requestId, and the same requestId after it succeeded', async () => {
    const w = await world('all');
    const first = w.risky();
    const ok = w.respond(first, 'allow');
    await w.actions.handle(ok);
    expect(last(w.sent)).toMatchObject({ type: 'approval.closed', approvalId: first });
    // Same bytes, new requestId, aimed at a new approval: the challenge does not match.
    const second = w.risky();
    await w.actions.handle({ ...ok, requestId: randomUUID(), approvalId: second });
    expect(last(w.sent)).toMatchObject({ type: 'error', reason: 'presence-invalid' });
    // Same requestId again: the first result is replayed, nothing is decided twice.
    await w.actions.handle({ ...ok, approvalId: second });
    expect(last(w.sent)).toMatchObject({ type: 'approval.closed', approvalId: first });
    expect(w.pending.approval(second)).toBeDefined();
  });

  it('E7.3: an assertion from a profile holding the copied room secret but not the credential is refused', async () => {
    const w = await world('risky');
    const id = w.risky();
    const copy = makeSoftAuthenticator();
    // Claims the registered credential id, signs with its own key.
    const requestId = randomUUID();
    const text = decisionText(w, id, 'allow', requestId, w.timers.now());
    const forged = { ...copy.assert(text), credentialId: w.auth.credential.credentialId };
    await w.actions.handle(w.respond(id, 'allow', { requestId, presence: forged }));
    expect(last(w.sent)).toMatchObject({ type: 'error', reason: 'presence-invalid' });
    // And its own, unregistered credential is nobody's.
    await w.actions.handle(w.respond(id, 'allow', { signer: copy }));
    expect(last(w.sent)).toMatchObject({ type: 'error', reason: 'presence-invalid' });
    expect(w.pending.approval(id)).toBeDefined();
  });

  it("E7.3/E9: a revoked phone's credential is refused with phone-revoked, and the proven phone gets its phone.removed", async () => {
    const w = await world('risky');
    const id = w.risky();
    expect(w.phones.revoke(w.phoneId)).toBe(true);
    const from = w.sent.length;
    await w.actions.handle(w.respond(id, 'allow'));
    expect(w.sent.slice(from)).toMatchObject([
      { type: 'error', reason: 'phone-revoked' },
      { type: 'phone.removed', phoneId: w.phoneId },
    ]);
    expect(w.pending.approval(id)).toBeDefined();
  });

  it('E7.1: a full-access dispatch needs presence when the policy is not none; a standard one never does', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'presence-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const w = await world('risky', { roots: [root] });
    const dispatch = (access: 'full' | 'standard', presence: boolean) => {
      const requestId = randomUUID();
      const ts = w.timers.now();
      return w.actions.handle({
        v: 1,
        type: 'dispatch.request',
        ts,
        requestId,
        prompt: 'reply: hi',
        cwd: root,
        worktree: false,
        access,
        ...(presence
          ? {
              presence: w.auth.assert(
                dispatchChallengeText({
                  roomId: TEST_ROOM_ID,
                  requestId,
                  ts,
                  content: dispatchContentHash({
                    prompt: 'reply: hi',
                    cwd: root,
                    worktree: false,
                    access,
                  }),
                })!,
              ),
            }
          : {}),
      });
    };
    await dispatch('full', false);
    expect(last(w.sent)).toMatchObject({
      type: 'dispatch.result',
      ok: false,
      reason: 'presence-required',
    });
    await dispatch('full', true);
    expect(w.sent.filter((m) => m.type === 'dispatch.result').at(-1)).toMatchObject({ ok: true });
    await dispatch('standard', false);
    expect(w.sent.filter((m) => m.type === 'dispatch.result').at(-1)).toMatchObject({ ok: true });
    const none = await world('none', { roots: [root] });
    await none.actions.handle({
      v: 1,
      type: 'dispatch.request',
      ts: none.timers.now(),
      requestId: randomUUID(),
      prompt: 'reply: hi',
      cwd: root,
      worktree: false,
      access: 'full',
    });
    expect(none.sent.filter((m) => m.type === 'dispatch.result').at(-1)).toMatchObject({
      ok: true,
    });
  });
});
