import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, Capabilities, Session } from '../../protocol/index.ts';
import { canEdit, canStop, respondExtras, scopeChoices, startedAtDesk } from './extensions.ts';
import { RESEND_WINDOW_MS } from './outbox.ts';
import { connect, machineOf, makeHarness, pairingFor } from './test-support/harness.ts';

const ALL: Partial<Capabilities> = { approvalRules: true, approvalEdit: true, interrupt: true };
const viewWith = (capabilities?: Partial<Capabilities>) => ({
  status:
    capabilities === undefined
      ? null
      : ({
          type: 'machine.status',
          v: 1,
          ts: 0,
          machine: 'm',
          pluginVersion: '1',
          capabilities: {
            fullAccessDispatch: false,
            questionForwarding: false,
            approvalRules: false,
            approvalEdit: false,
            interrupt: false,
            phones: false,
            ...capabilities,
          },
        } as const),
});
const request: ApprovalRequest = {
  v: 1,
  type: 'approval.request',
  ts: 0,
  approvalId: 'a1',
  sessionId: 's1',
  title: 'Run',
  detail: 'npm test',
  createdAt: 0,
  tool: 'run',
  rule: { key: 'run: npm test', scopes: ['session', 'always'] },
  editable: { label: 'Command', value: 'npm test' },
};
const session = (state: Session['state'], live = true): Session => ({
  sessionId: 's1',
  title: 'T',
  cwd: '/w',
  state,
  lastActivity: 0,
  dispatched: false,
  live,
});

describe('E2–E4: the phone offers only what the machine announced (EC compatibility)', () => {
  it('EC: without the capabilities a card offers Allow once only, no Edit, no Stop', () => {
    for (const v of [viewWith(), viewWith({})]) {
      expect(scopeChoices(v, request)).toEqual(['once']);
      expect(canEdit(v, request)).toBe(false);
      expect(canStop(v, session('running'))).toBe(false);
    }
  });

  it('E2: with approvalRules the card offers once, then the scopes the request offers, in order', () => {
    expect(scopeChoices(viewWith(ALL), request)).toEqual(['once', 'session', 'always']);
    expect(scopeChoices(viewWith(ALL), { rule: { key: 'rm', scopes: [] } })).toEqual(['once']);
    expect(scopeChoices(viewWith(ALL), {})).toEqual(['once']);
  });

  it('E3: Edit only with approvalEdit and an editable request', () => {
    expect(canEdit(viewWith(ALL), request)).toBe(true);
    expect(canEdit(viewWith(ALL), { editable: undefined })).toBe(false);
    expect(canEdit(viewWith({ approvalRules: true }), request)).toBe(false);
  });

  it('E4: Stop only with interrupt, on a live session with a turn under way', () => {
    const v = viewWith(ALL);
    expect(canStop(v, session('running'))).toBe(true);
    expect(canStop(v, session('awaiting_approval'))).toBe(true);
    expect(canStop(v, session('idle'))).toBe(false);
    expect(canStop(v, session('done'))).toBe(false);
    expect(canStop(v, session('running', false))).toBe(false);
  });

  it("E10: a session a real agent's hooks reported (not dispatched, not live) says to reply at the terminal; a scripted local one or a live one does not", () => {
    expect(startedAtDesk({ dispatched: false, live: false, agent: 'claude' })).toBe(true);
    expect(startedAtDesk({ dispatched: false, live: false, agent: 'mock' })).toBe(false);
    expect(startedAtDesk({ dispatched: false, live: false })).toBe(false);
    expect(startedAtDesk({ dispatched: true, live: false, agent: 'claude' })).toBe(false);
    expect(startedAtDesk({ dispatched: false, live: true, agent: 'claude' })).toBe(false);
  });

  it('E2/E3: respondExtras keeps a plain allow plain, refuses what the machine would refuse', () => {
    const v = viewWith(ALL);
    expect(respondExtras(v, request, 'allow', { scope: 'once' })).toEqual({ ok: true, extras: {} });
    expect(respondExtras(v, request, 'allow', { edited: 'npm test' })).toEqual({
      ok: true,
      extras: {},
    });
    expect(respondExtras(v, request, 'allow', { scope: 'session' })).toEqual({
      ok: true,
      extras: { scope: 'session' },
    });
    expect(respondExtras(v, request, 'allow', { edited: 'npm run lint' })).toEqual({
      ok: true,
      extras: { edited: 'npm run lint' },
    });
    const code = (r: ReturnType<typeof respondExtras>) => (r.ok ? null : r.code);
    expect(code(respondExtras(v, request, 'deny', { scope: 'always' }))).toBe('scope-not-offered');
    expect(
      code(
        respondExtras(v, { ...request, rule: { key: 'k', scopes: ['session'] } }, 'allow', {
          scope: 'always',
        }),
      ),
    ).toBe('scope-not-offered');
    expect(code(respondExtras(v, request, 'allow', { scope: 'session', edited: 'ls' }))).toBe(
      'scope-not-offered',
    );
    expect(code(respondExtras(v, request, 'deny', { edited: 'ls' }))).toBe('not-editable');
    expect(
      code(respondExtras(v, { ...request, editable: undefined }, 'allow', { edited: 'ls' })),
    ).toBe('not-editable');
    expect(code(respondExtras(v, request, 'allow', { edited: '  ' }))).toBe('edit-blank');
    expect(code(respondExtras(v, request, 'allow', { edited: 'x'.repeat(4097) }))).toBe(
      'edit-too-long',
    );
    expect(code(respondExtras(viewWith(), request, 'allow', { scope: 'session' }))).toBe(
      'scope-not-offered',
    );
    expect(code(respondExtras(viewWith(), request, 'allow', { edited: 'ls' }))).toBe(
      'not-editable',
    );
  });
});

async function paired(capabilities?: Partial<Capabilities>) {
  const h = makeHarness();
  await h.client.start();
  const p = pairingFor('demo', 7);
  await h.client.pair(p);
  const m = machineOf(p);
  const ws = h.sockets.last();
  connect(ws);
  const status = viewWith(capabilities).status;
  if (status) m.say(ws, { ...status });
  m.say(ws, {
    type: 'session.snapshot',
    ts: 0,
    sessions: [session('awaiting_approval')],
  });
  const { v: _v, ...wire } = request;
  m.say(ws, wire);
  return { ...h, m, ws };
}
const sentOf = (heard: Record<string, unknown>[], type: string) =>
  heard.filter((x) => x.type === type);

describe('E2–E4 through the client: what goes on the wire', () => {
  it('EC: against a machine without the capabilities nothing new is ever sent', async () => {
    const { client, m, ws } = await paired();
    expect(await client.respondApproval(m.roomId, 'a1', 'allow', { scope: 'session' })).toEqual({
      ok: false,
      code: 'scope-not-offered',
    });
    expect(await client.respondApproval(m.roomId, 'a1', 'allow', { edited: 'ls' })).toEqual({
      ok: false,
      code: 'not-editable',
    });
    expect(await client.interrupt(m.roomId, 's1')).toEqual({ ok: false, code: 'not-offered' });
    expect(await client.revokeRule(m.roomId, 'r1')).toEqual({ ok: false, code: 'not-offered' });
    expect(client.getRules(m.roomId)).toBeNull();
    expect(client.state().outbox).toEqual([]);
    await client.respondApproval(m.roomId, 'a1', 'allow');
    const heard = m.heard(ws);
    const [respond] = sentOf(heard, 'approval.respond');
    expect(Object.keys(respond!).sort()).toEqual(
      ['approvalId', 'decision', 'requestId', 'ts', 'type', 'v'].sort(),
    );
    for (const t of ['rules.get', 'rule.revoke', 'session.interrupt'])
      expect(sentOf(heard, t)).toEqual([]);
  });

  it('E2: Allow for this session carries scope; the decision is kept until approval.closed', async () => {
    const { client, m, ws } = await paired(ALL);
    expect((await client.respondApproval(m.roomId, 'a1', 'allow', { scope: 'session' })).ok).toBe(
      true,
    );
    expect(sentOf(m.heard(ws), 'approval.respond')).toEqual([
      expect.objectContaining({ approvalId: 'a1', decision: 'allow', scope: 'session' }),
    ]);
    m.say(ws, { type: 'approval.closed', ts: 1, approvalId: 'a1', resolution: 'allow' });
    expect(client.state().outbox).toEqual([]);
  });

  it('E3: Allow edited carries exactly the edited command', async () => {
    const { client, m, ws } = await paired(ALL);
    await client.respondApproval(m.roomId, 'a1', 'allow', { edited: 'npm test -- --bail' });
    const [respond] = sentOf(m.heard(ws), 'approval.respond');
    expect(respond).toMatchObject({ edited: 'npm test -- --bail' });
    expect(respond).not.toHaveProperty('scope');
  });

  it('E2: the rules list is kept from the machine; a revoke is confirmed by the list without it', async () => {
    const { client, m, ws } = await paired(ALL);
    const requestId = client.getRules(m.roomId);
    expect(sentOf(m.heard(ws), 'rules.get')).toEqual([expect.objectContaining({ requestId })]);
    const rule = {
      ruleId: 'r1',
      key: 'run: npm test',
      tool: 'run',
      scope: 'session',
      sessionId: 's1',
      createdAt: 5,
      uses: 2,
    };
    m.say(ws, { type: 'rules', ts: 2, requestId, rules: [rule] });
    expect(client.state().machines[0]!.rules).toEqual([rule]);
    const revoke = await client.revokeRule(m.roomId, 'r1');
    expect(revoke.ok).toBe(true);
    // A second tap while the first is unconfirmed sends nothing more.
    await client.revokeRule(m.roomId, 'r1');
    expect(sentOf(m.heard(ws), 'rule.revoke')).toEqual([expect.objectContaining({ ruleId: 'r1' })]);
    m.say(ws, { type: 'rules', ts: 3, rules: [rule] });
    expect(client.state().outbox).toHaveLength(1);
    m.say(ws, { type: 'rules', ts: 4, rules: [] });
    expect(client.state().outbox).toEqual([]);
    expect(client.state().machines[0]!.rules).toEqual([]);
  });

  it('E4: Stop sends session.interrupt once; turn.final interrupted confirms it, not-running answers it', async () => {
    const { client, m, ws } = await paired(ALL);
    await client.interrupt(m.roomId, 's1');
    await client.interrupt(m.roomId, 's1');
    expect(sentOf(m.heard(ws), 'session.interrupt')).toEqual([
      expect.objectContaining({ sessionId: 's1' }),
    ]);
    m.say(ws, {
      type: 'turn.final',
      ts: 2,
      sessionId: 's1',
      ok: false,
      summary: 'stopped',
      reason: 'interrupted',
    });
    expect(client.state().outbox).toEqual([]);
    await client.interrupt(m.roomId, 's1');
    expect(client.state().outbox).toHaveLength(1);
    m.say(ws, {
      type: 'error',
      ts: 3,
      message: 'not running',
      sessionId: 's1',
      reason: 'not-running',
    });
    expect(client.state().outbox).toEqual([]);
  });

  it('E4: a Stop too old to re-send is dropped when the machine is back, never sent late', async () => {
    const { client, m, ws, clock, sockets } = await paired(ALL);
    await client.interrupt(m.roomId, 's1');
    ws.drop();
    clock.advance(RESEND_WINDOW_MS + 1);
    const ws2 = sockets.last();
    connect(ws2);
    expect(client.state().outbox).toEqual([]);
    expect(sentOf(m.heard(ws2), 'session.interrupt')).toEqual([]);
  });
});
