import { describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../protocol/index.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';
import { dispatch, finalOf, is, relaySuite, rid } from '../test-support/relay-suite.ts';
import type { TestPhone } from '../test-support/test-phone.ts';

// E1 on the machine side and U5's "sessions survive a restart", against a real relay process
// with the test phone. A restart here stops the machine and starts a new one on the same state
// dir (the process-level restart is in wire-replay.test.ts).

const suite = relaySuite();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The snapshot answering a sessions.get sent now. */
async function snapshot(phone: TestPhone) {
  const from = phone.messages.length;
  phone.send({ type: 'sessions.get' });
  return phone.waitFor(is('session.snapshot'), 5000, from);
}

describe('E1: cards that match the machine (machine side)', () => {
  it('E1: machine.status.instance is one random id per process start, the same in every status of that process', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const first = await phone.waitFor(is('machine.status'));
    expect(first.instance).toMatch(UUID);
    expect(first.instance).toBe(w.machine.instance);
    const from = phone.messages.length;
    await w.phone(); // a second phone joining: the machine sends its status again
    const again = await phone.waitFor(is('machine.status'), 5000, from);
    expect(again.instance).toBe(first.instance);
    const mark = phone.messages.length;
    await w.restart();
    const after = await phone.waitFor(is('machine.status'), 8000, mark);
    expect(after.instance).toMatch(UUID);
    expect(after.instance).not.toBe(first.instance);
  });

  it('E1: session.snapshot.open names exactly the approvals and questions pending when it was built', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    expect((await snapshot(phone)).open).toEqual({ approvals: [], questions: [] });
    await dispatch(phone, { prompt: 'run: true' });
    const a = await phone.waitFor(is('approval.request'));
    await dispatch(phone, { prompt: 'ask: Go? | Yes | No' });
    const q = await phone.waitFor(is('question.request'));
    const local = w.machine.raiseApproval({ title: 'Local', detail: 'raised at the desk' });
    expect((await snapshot(phone)).open).toEqual({
      approvals: [a.approvalId, local.approvalId],
      questions: [q.questionId],
    });
    w.machine.answerApproval(a.approvalId, 'deny');
    phone.send({
      type: 'question.respond',
      requestId: rid(),
      questionId: q.questionId,
      answers: [{ itemId: 'q1', optionIds: ['1'] }],
    });
    await phone.waitFor((m) => m.type === 'question.closed' && m.questionId === q.questionId);
    expect((await snapshot(phone)).open).toEqual({
      approvals: [local.approvalId],
      questions: [],
    });
  });

  it('E1: approval.request and question.request carry expiresAt = createdAt + the timeout, the same when re-reminded (D8)', async () => {
    const timers = makeManualTimers(Date.now());
    const w = await suite.world({ timers, approvalTimeoutMs: 60_000, questionTimeoutMs: 120_000 });
    const phone = await w.phone();
    await dispatch(phone, { prompt: 'run: true' });
    await dispatch(phone, { prompt: 'ask: Go? | Yes | No' });
    const a = await phone.waitFor(is('approval.request'));
    const q = await phone.waitFor(is('question.request'));
    expect(a.expiresAt).toBe(a.createdAt + 60_000);
    expect(q.expiresAt).toBe(q.createdAt + 120_000);
    timers.advance(30_000);
    const from = phone.messages.length;
    phone.send({ type: 'sessions.get' });
    const reA = await phone.waitFor(is('approval.request'), 5000, from);
    const reQ = await phone.waitFor(is('question.request'), 5000, from);
    expect(reA).toMatchObject({ approvalId: a.approvalId, expiresAt: a.expiresAt });
    expect(reQ).toMatchObject({ questionId: q.questionId, expiresAt: q.expiresAt });
    // The machine does expire them then: the time the phone shows is the time it keeps.
    timers.advance(30_000);
    expect(await phone.waitFor(is('approval.closed'))).toMatchObject({
      approvalId: a.approvalId,
      resolution: 'expired',
    });
  });
});

describe('U5: sessions and transcripts survive a machine restart', () => {
  it('U5/E11: after a restart every session is listed with its last state, live:false and ended machine-restarted; transcript.get reads it; session.message is refused with no-remote-followup saying why; nothing is pending', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const done = await dispatch(phone, { prompt: 'say: one\nsay: two' });
    await finalOf(phone, done.sessionId!);
    const cut = await dispatch(phone, { prompt: 'run: touch never.txt' });
    await phone.waitFor(is('approval.request'));
    const before = w.machine.transcript(done.sessionId!);

    const mark = phone.messages.length;
    await w.restart();
    const snap = await phone.waitFor(is('session.snapshot'), 8000, mark);
    expect(snap.open).toEqual({ approvals: [], questions: [] });
    const byId = new Map(snap.sessions.map((s) => [s.sessionId, s]));
    expect(byId.get(done.sessionId!)).toMatchObject({
      title: 'say: one say: two',
      state: 'done',
      live: false,
      dispatched: true,
      access: 'standard',
      cwd: w.root,
      ended: { reason: 'machine-restarted' },
    });
    // The turn the stop cut short ended, and says why: nothing shows it as still running.
    expect(byId.get(cut.sessionId!)).toMatchObject({
      state: 'error',
      live: false,
      ended: { reason: 'machine-restarted' },
    });
    // E11.7: its turn.final said the machine's stop cut it short (not a failure): no error frame.
    expect(
      phone.messages.find((m) => m.type === 'turn.final' && m.sessionId === cut.sessionId),
    ).toMatchObject({ ok: false, reason: 'machine-stopped' });
    expect(
      phone.messages.filter((m) => m.type === 'error' && m.sessionId === cut.sessionId),
    ).toEqual([]);
    expect(w.machine.transcript(cut.sessionId!).map((e) => e.text)).toEqual([
      'run: touch never.txt',
      'Approval cancelled: `touch never.txt` was not run.',
      'Turn stopped: the machine shut down.',
    ]);

    const requestId = rid();
    phone.send({ type: 'transcript.get', requestId, sessionId: done.sessionId! });
    const page = await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'transcript' }> =>
        m.type === 'transcript' && m.requestId === requestId,
    );
    expect(page.entries).toEqual(before);
    expect(page.entries.map((e) => e.text)).toEqual(['say: one\nsay: two', 'one', 'two']);

    const from = phone.messages.length;
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: done.sessionId!,
      text: 'say: three',
    });
    expect(
      await phone.waitFor((m) => m.type === 'error' && m.sessionId === done.sessionId, 5000, from),
    ).toMatchObject({
      reason: 'no-remote-followup',
      message: expect.stringContaining('ended when the machine restarted'),
    });
    // E11: refused, never run as a fresh turn: the transcript did not grow.
    expect(w.machine.transcript(done.sessionId!)).toEqual(before);
    // A new session after the restart continues normally beside the old ones, and has not ended.
    const next = await dispatch(phone, { prompt: 'say: fresh' });
    await finalOf(phone, next.sessionId!);
    expect(w.machine.sessions()[0]).toMatchObject({ sessionId: next.sessionId, live: true });
    expect(w.machine.sessions()[0]!.ended).toBeUndefined();
    expect(w.machine.sessions().map((s) => s.sessionId)).toEqual([
      next.sessionId,
      cut.sessionId,
      done.sessionId,
    ]);
  });

  it('E11: a session the machine closed ends as stopped, at once and after a restart (never machine-restarted, never live again); a reply to it says why', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'say: hello' });
    await finalOf(phone, r.sessionId!);
    const from = phone.messages.length;
    expect(w.machine.disposeSession(r.sessionId!)).toEqual({ ok: true });
    const update = await phone.waitFor(
      (m) => m.type === 'session.update' && m.session.sessionId === r.sessionId,
      5000,
      from,
    );
    expect(update.type === 'session.update' && update.session).toMatchObject({
      live: false,
      ended: { reason: 'stopped' },
    });
    const mark = phone.messages.length;
    await w.restart();
    const snap = await phone.waitFor(is('session.snapshot'), 8000, mark);
    expect(snap.sessions.find((s) => s.sessionId === r.sessionId)).toMatchObject({
      live: false,
      ended: { reason: 'stopped' },
    });
    const at = phone.messages.length;
    phone.send({ type: 'session.message', requestId: rid(), sessionId: r.sessionId!, text: 'hi' });
    expect(
      await phone.waitFor((m) => m.type === 'error' && m.sessionId === r.sessionId, 5000, at),
    ).toMatchObject({
      reason: 'no-remote-followup',
      message: expect.stringContaining('was stopped'),
    });
  });
});
