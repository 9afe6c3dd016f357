import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { setupActions } from '../test-support/actions.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function setup(o: Parameters<typeof setupActions>[0] = {}) {
  const s = setupActions(o);
  cleanups.push(s.cleanup);
  return s;
}

describe('D11: every requestId seen within the window is remembered, not only the last 256', () => {
  it('a duplicate whose result left the 256-entry LRU is refused, never run again', async () => {
    const { sent, pending, actions } = setup();
    const first = randomUUID();
    const { approval } = pending.openApproval('s', 't', 'd', { tool: 'run' });
    await actions.handle({
      v: 1,
      type: 'approval.respond',
      ts: Date.now(),
      requestId: first,
      approvalId: approval.approvalId,
      decision: 'deny',
    });
    expect(sent.at(-1)).toMatchObject({ type: 'approval.closed', resolution: 'deny' });
    for (let i = 0; i < 300; i++) {
      await actions.handle({
        v: 1,
        type: 'approval.respond',
        ts: Date.now(),
        requestId: randomUUID(),
        approvalId: randomUUID(),
        decision: 'allow',
      });
    }
    const second = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    // Same requestId, now aimed at a new pending approval: a replayed "allow" must not land.
    await actions.handle({
      v: 1,
      type: 'approval.respond',
      ts: Date.now(),
      requestId: first,
      approvalId: second.approvalId,
      decision: 'allow',
    });
    expect(sent.at(-1)).toMatchObject({ type: 'error', context: 'approval.respond' });
    expect((sent.at(-1) as { message: string }).message).toContain('already handled');
    expect(pending.approval(second.approvalId)).toBeDefined();
  });

  it('a duplicate still in the LRU gets its original result again, even aimed at another id', async () => {
    const { sent, pending, actions } = setup();
    const rid = randomUUID();
    const a = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    await actions.handle({
      v: 1,
      type: 'approval.respond',
      ts: Date.now(),
      requestId: rid,
      approvalId: a.approvalId,
      decision: 'allow',
    });
    const original = sent.at(-1);
    const b = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    await actions.handle({
      v: 1,
      type: 'approval.respond',
      ts: Date.now(),
      requestId: rid,
      approvalId: b.approvalId,
      decision: 'allow',
    });
    expect(sent.at(-1)).toBe(original);
    expect(pending.approval(b.approvalId)).toBeDefined();
  });
});

describe('H3: an action whose requestId cannot be remembered is not run', () => {
  const respond = (approvalId: string) => ({
    v: 1 as const,
    type: 'approval.respond' as const,
    ts: Date.now(),
    requestId: randomUUID(),
    approvalId,
    decision: 'allow' as const,
  });

  it('H3: the store refuses the write (full disk): the approval stays pending, the phone is told', async () => {
    const { sent, pending, actions, store } = setup({ maxPages: 8 });
    // Fill the store to the last byte, as a full disk would: big rows, then ever smaller ones.
    const filler = store.db.prepare(
      'INSERT INTO seen_requests (request_id, type, seen_at) VALUES (?, ?, ?)',
    );
    let n = 0;
    for (const size of [200, 50, 10, 1]) {
      for (let tries = 0; tries < 10_000; tries++) {
        try {
          filler.run(`${n++}`.padEnd(size, 'f'), 'x', Date.now());
        } catch {
          break;
        }
      }
    }
    const a = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    await actions.handle(respond(a.approvalId));
    expect(sent.at(-1)).toMatchObject({ type: 'error', context: 'approval.respond' });
    expect((sent.at(-1) as { message: string }).message).toContain('could not record it');
    expect(pending.approval(a.approvalId)).toBeDefined();
  });

  it('H3: past MAX_SEEN_REQUESTS within the window a new action is refused, not run', async () => {
    const { sent, pending, actions } = setup({ maxSeen: 2 });
    for (let i = 0; i < 2; i++) await actions.handle(respond(randomUUID()));
    const a = pending.openApproval('s', 't', 'd', { tool: 'run' }).approval;
    await actions.handle(respond(a.approvalId));
    expect((sent.at(-1) as { message: string }).message).toContain('too many requests');
    expect(pending.approval(a.approvalId)).toBeDefined();
  });
});
