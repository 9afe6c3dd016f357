import { describe, expect, it } from 'vitest';
import { SNAPSHOT_WAIT_MS } from './client.ts';
import { draftKeys } from './drafts.ts';
import { connect, flush, machineOf, makeHarness, pairingFor } from './test-support/harness.ts';

const approval = (id: string, ts = 0) => ({
  type: 'approval.request',
  ts,
  approvalId: id,
  sessionId: 's1',
  title: `Run ${id}`,
  detail: 'npm test',
  createdAt: ts,
});
const session = (state: string) => ({
  sessionId: 's1',
  title: 'T',
  cwd: '/w',
  state,
  lastActivity: 5,
  dispatched: false,
  live: true,
});

async function paired() {
  const h = makeHarness();
  await h.client.start();
  const p = pairingFor('demo', 7);
  await h.client.pair(p);
  const m = machineOf(p);
  const ws = h.sockets.last();
  connect(ws);
  return { ...h, m, ws };
}
const decisions = (heard: Record<string, unknown>[]) =>
  heard.filter((x) => x.type === 'approval.respond');

describe('E1 on the phone: a decision is never re-sent for a card the machine no longer holds', () => {
  it('E1: the machine restarts (fallback path: no fields) — the card closes, the queued Allow is dropped as "not delivered", never re-sent', async () => {
    const { client, m, ws } = await paired();
    m.say(ws, { type: 'session.snapshot', sessions: [session('awaiting_approval')] });
    m.say(ws, approval('a1'));
    await client.respondApproval(m.roomId, 'a1', 'allow');
    ws.receive({ kind: 'presence', room: m.roomId, role: 'machine', online: false });
    expect(client.state().outbox.map((e) => e.state)).toEqual(['unconfirmed']);
    ws.receive({ kind: 'presence', room: m.roomId, role: 'machine', online: true });
    // Asked for the snapshot, and held the decision back until it came.
    expect(decisions(m.heard(ws))).toHaveLength(1);
    m.say(ws, { type: 'session.snapshot', ts: 1, sessions: [] });
    const view = client.state().machines[0]!;
    expect(view.approvals).toEqual({});
    expect(view.closed[0]).toMatchObject({ id: 'a1', resolution: 'gone', undelivered: 'allow' });
    expect(client.state().outbox).toEqual([]);
    ws.receive({ kind: 'presence', room: m.roomId, role: 'machine', online: true });
    m.say(ws, { type: 'session.snapshot', ts: 2, sessions: [] });
    expect(decisions(m.heard(ws))).toHaveLength(1);
  });

  it('E1: a machine that never answers sessions.get still gets the decision re-sent after SNAPSHOT_WAIT_MS', async () => {
    const { client, m, ws, clock } = await paired();
    m.say(ws, approval('a1'));
    await client.respondApproval(m.roomId, 'a1', 'allow');
    ws.receive({ kind: 'presence', room: m.roomId, role: 'machine', online: false });
    ws.receive({ kind: 'presence', room: m.roomId, role: 'machine', online: true });
    expect(decisions(m.heard(ws))).toHaveLength(1);
    clock.advance(SNAPSHOT_WAIT_MS);
    expect(decisions(m.heard(ws))).toHaveLength(2);
    expect(client.state().outbox.map((e) => e.sendCount)).toEqual([2]);
  });

  it('E1: the machine restarts (fields path) — a new instance closes the card with "restarted", the decision is dropped', async () => {
    const { client, m, ws } = await paired();
    m.say(ws, {
      type: 'machine.status',
      ts: 0,
      machine: 'demo',
      pluginVersion: '1',
      instance: 'A',
    });
    m.say(ws, approval('a1'));
    await client.respondApproval(m.roomId, 'a1', 'deny');
    m.say(ws, {
      type: 'machine.status',
      ts: 5,
      machine: 'demo',
      pluginVersion: '1',
      instance: 'B',
    });
    expect(client.state().machines[0]!.closed[0]).toMatchObject({
      resolution: 'restarted',
      undelivered: 'deny',
    });
    expect(client.state().outbox).toEqual([]);
  });

  it('E1: the machine answers "not-pending" to a re-sent decision — dropped with the note, not re-sent again', async () => {
    const { client, m, ws } = await paired();
    m.say(ws, approval('a1'));
    await client.respondApproval(m.roomId, 'a1', 'allow');
    m.say(ws, { type: 'error', message: 'not pending', context: 'a1', reason: 'not-pending' });
    expect(client.state().outbox).toEqual([]);
    expect(client.state().machines[0]!.closed[0]).toMatchObject({ id: 'a1', undelivered: 'allow' });
  });
});

describe('U2: nothing typed is lost', () => {
  it('U2.1: a reply the machine refuses goes back into its box with the reason beside it', async () => {
    const { client, m, ws } = await paired();
    const key = draftKeys.reply(m.roomId, 's1');
    client.setDraft(key, 'typed after sending');
    await client.sendMessage(m.roomId, 's1', 'x'.repeat(9000));
    m.say(ws, {
      type: 'error',
      message: 'the message is longer than 8192 characters',
      sessionId: 's1',
      reason: 'message-too-long-chars',
    });
    expect(client.state().drafts[key]).toBe(`${'x'.repeat(9000)}\n\ntyped after sending`);
    expect(client.state().replyNotes[key]!.at(-1)).toMatchObject({
      outcome: 'refused',
      reason: 'message-too-long-chars',
    });
    expect(client.state().outbox).toEqual([]);
  });

  it('U2.2: replies are Sent then Delivered in order; an unrelated error in the session is not a refusal', async () => {
    const { client, m, ws } = await paired();
    const key = draftKeys.reply(m.roomId, 's1');
    await client.sendMessage(m.roomId, 's1', 'first');
    m.say(ws, { type: 'error', message: 'the agent crashed', context: 'turn', sessionId: 's1' });
    expect(client.state().outbox.map((e) => e.kind)).toEqual(['message']);
    m.say(ws, { type: 'session.update', session: session('awaiting_approval') });
    expect(client.state().replyNotes[key]!.map((n) => [n.text, n.outcome])).toEqual([
      ['first', 'delivered'],
    ]);
  });

  it('U2.3: the New-session draft is cleared only when the machine accepted exactly that prompt', async () => {
    const { client, m, ws } = await paired();
    const key = draftKeys.prompt(m.roomId);
    client.setDraft(key, 'fix it');
    const r = await client.dispatch(m.roomId, { prompt: 'fix it', worktree: false });
    if (!r.ok) throw new Error(r.code);
    m.say(ws, { type: 'dispatch.result', requestId: r.requestId, ok: false, error: 'no' });
    expect(client.state().drafts[key]).toBe('fix it');
    const again = await client.dispatch(m.roomId, { prompt: 'fix it', worktree: false });
    if (!again.ok) throw new Error(again.code);
    m.say(ws, { type: 'dispatch.result', requestId: again.requestId, ok: true, sessionId: 's9' });
    await flush();
    expect(client.state().drafts[key]).toBeUndefined();
  });
});

describe('U4.offline: the phone’s network, the relay and the machine are told apart', () => {
  it('U4.offline: without a network actions are refused at once and the socket is closed; back online it reconnects at once', async () => {
    const { client, m, ws, sockets } = await paired();
    m.say(ws, approval('a1'));
    client.setNetwork(false);
    expect(client.state().network).toBe('offline');
    expect(ws.closedWith).not.toBeNull();
    expect(await client.respondApproval(m.roomId, 'a1', 'allow')).toEqual({
      ok: false,
      code: 'no-network',
    });
    const count = sockets.sockets.length;
    client.setNetwork(true);
    expect(sockets.sockets.length).toBe(count + 1);
    connect(sockets.last());
    expect(client.blocked(m.roomId)).toBeNull();
  });

  it('U4.offline: "Reconnect now" probes a link that claims to be up and replaces one that is down', async () => {
    const { client, m, ws, sockets, clock } = await paired();
    const hellos = () => ws.frames().filter((f) => f.kind === 'hello').length;
    const before = hellos();
    client.reconnectNow();
    expect(hellos()).toBe(before + 1);
    clock.advance(10_000); // no hello-ok: the link was dead
    expect(client.blocked(m.roomId)).toBe('offline');
    const count = sockets.sockets.length;
    client.reconnectNow();
    expect(sockets.sockets.length).toBe(count + 1);
  });
});
