import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MAX_ENVELOPE_BYTES,
  REQUEST_WINDOW_MS,
  seal,
  utf8ByteLength,
} from '../../protocol/index.ts';
import { dispatch, finalOf, is, relaySuite, rid } from '../test-support/relay-suite.ts';

const suite = relaySuite();
const minutes = (n: number) => n * 60_000;

describe('Idempotency: the original result is replayed for a duplicate requestId', () => {
  it('dispatch.request: same dispatch.result, one session', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const requestId = rid();
    const first = await dispatch(phone, { prompt: 'say: once', requestId });
    const from = phone.messages.length;
    const second = await dispatch(phone, { prompt: 'say: once', requestId });
    expect(phone.messages.slice(from).filter(is('dispatch.result'))).toHaveLength(1);
    expect(second).toEqual(first);
    expect(w.machine.sessions()).toHaveLength(1);
  });

  it('approval.respond: same approval.closed, one decision', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'run: echo x >> count.txt' });
    const a = await phone.waitFor(is('approval.request'));
    const requestId = rid();
    phone.send({
      type: 'approval.respond',
      requestId,
      approvalId: a.approvalId,
      decision: 'allow',
    });
    const closed = await phone.waitFor(is('approval.closed'));
    await finalOf(phone, r.sessionId!);
    // The decision is confirmed before the agent, woken by it, reports running again.
    const requestAt = phone.messages.indexOf(a);
    const runningAgain = phone.messages.findIndex(
      (m, i) => i > requestAt && m.type === 'session.update' && m.session.state === 'running',
    );
    expect(phone.messages.indexOf(closed)).toBeLessThan(runningAgain);
    const from = phone.messages.length;
    phone.send({
      type: 'approval.respond',
      requestId,
      approvalId: a.approvalId,
      decision: 'allow',
    });
    const again = await phone.waitFor(is('approval.closed'), 5000, from);
    expect(again).toEqual(closed);
    expect(again.resolution).toBe('allow');
    expect(w.log.lines.some((l) => l.code === 'duplicate-request')).toBe(true);
  });

  it('question.respond: same question.closed; the agent got one answer', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'ask: Color? | Red | Blue' });
    const q = await phone.waitFor(is('question.request'));
    const requestId = rid();
    const answer = {
      type: 'question.respond' as const,
      requestId,
      questionId: q.questionId,
      answers: [{ itemId: 'q1', optionIds: ['2'] }],
    };
    phone.send(answer);
    const closed = await phone.waitFor(is('question.closed'));
    expect(closed.resolution).toBe('phone');
    const final = await finalOf(phone, r.sessionId!);
    const from = phone.messages.length;
    phone.send(answer);
    expect(await phone.waitFor(is('question.closed'), 5000, from)).toEqual(closed);
    expect(final.summary).toBe('Asked "Color?": Blue');
  });

  it('transcript.get: same page replayed', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'say: hello' });
    await finalOf(phone, r.sessionId!);
    const requestId = rid();
    phone.send({ type: 'transcript.get', requestId, sessionId: r.sessionId! });
    const page = await phone.waitFor(is('transcript'));
    const from = phone.messages.length;
    phone.send({ type: 'transcript.get', requestId, sessionId: r.sessionId! });
    expect(await phone.waitFor(is('transcript'), 5000, from)).toEqual(page);
    expect(page.entries.map((e) => [e.role, e.text])).toEqual([
      ['user', 'say: hello'],
      ['assistant', 'hello'],
    ]);
  });

  it('session.message: steers once; the duplicate is confirmed with a session.update, not run again', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'say: first' });
    await finalOf(phone, r.sessionId!);
    const requestId = rid();
    let from = phone.messages.length;
    phone.send({
      type: 'session.message',
      requestId,
      sessionId: r.sessionId!,
      text: 'say: second',
    });
    await phone.waitFor((m) => m.type === 'turn.final' && m.summary === 'second', 5000, from);
    from = phone.messages.length;
    phone.send({
      type: 'session.message',
      requestId,
      sessionId: r.sessionId!,
      text: 'say: second',
    });
    await phone.waitFor(
      (m) => m.type === 'session.update' && m.session.sessionId === r.sessionId,
      5000,
      from,
    );
    expect(
      w.machine
        .transcript(r.sessionId!)
        .filter((e) => e.role === 'user')
        .map((e) => e.text),
    ).toEqual(['say: first', 'say: second']);
  });
});

describe('D11: stale and not-pending refusals', () => {
  it('a phone action whose ts is more than 5 minutes from the machine clock is refused (stale-request), nothing runs', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, {
      prompt: 'say: x',
      ts: Date.now() - REQUEST_WINDOW_MS - minutes(1),
    });
    expect(r).toMatchObject({ ok: false, reason: 'stale-request' });
    const ahead = await dispatch(phone, {
      prompt: 'say: x',
      ts: Date.now() + REQUEST_WINDOW_MS + minutes(1),
    });
    expect(ahead).toMatchObject({ ok: false, reason: 'stale-request' });
    expect(w.machine.sessions()).toEqual([]);
    const { approvalId } = w.machine.raiseApproval({ title: 'Deploy', detail: 'd' });
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId,
      decision: 'allow',
      ts: Date.now() - minutes(6),
    });
    expect(
      await phone.waitFor((m) => m.type === 'error' && m.reason === 'stale-request'),
    ).toMatchObject({ context: 'approval.respond' });
    expect(w.machine.pendingApprovals().map((a) => a.approvalId)).toEqual([approvalId]);
  });

  it('a decision for an id that is not pending changes nothing and gets error not-pending', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: randomUUID(),
      decision: 'allow',
    });
    expect(await phone.waitFor(is('error'))).toMatchObject({ reason: 'not-pending' });
    // Closed already (answered at the desk): a late phone "allow" does not flip the decision.
    const raised = w.machine.raiseApproval({ title: 'Deploy', detail: 'd' });
    expect(w.machine.answerApproval(raised.approvalId, 'deny')).toEqual({ ok: true });
    expect(await raised.outcome).toBe('local');
    const from = phone.messages.length;
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: raised.approvalId,
      decision: 'allow',
    });
    expect(
      await phone.waitFor((m) => m.type === 'error' && m.reason === 'not-pending', 5000, from),
    ).toBeTruthy();
    const q = w.machine.raiseQuestion({
      items: [{ id: 'a', prompt: 'p', options: [], multiSelect: false, allowFreeText: true }],
    });
    expect(
      w.machine.answerQuestion(q.questionId, [{ itemId: 'a', optionIds: [], freeText: 'hi' }]),
    ).toEqual({ ok: true });
    phone.send({
      type: 'question.respond',
      requestId: rid(),
      questionId: q.questionId,
      answers: [{ itemId: 'a', optionIds: [], freeText: 'x' }],
    });
    expect(
      await phone.waitFor(
        (m) => m.type === 'error' && m.reason === 'not-pending' && m.context === q.questionId,
      ),
    ).toBeTruthy();
  });

  it('an answer naming options that do not exist is refused; the question stays open', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const q = w.machine.raiseQuestion({
      items: [
        {
          id: 'a',
          prompt: 'p',
          options: [{ id: 'x', label: 'X' }],
          multiSelect: false,
          allowFreeText: false,
        },
      ],
    });
    phone.send({
      type: 'question.respond',
      requestId: rid(),
      questionId: q.questionId,
      answers: [{ itemId: 'a', optionIds: ['nope'] }],
    });
    expect((await phone.waitFor(is('error'))).message).toContain('has no option "nope"');
    expect(w.machine.pendingQuestions()).toHaveLength(1);
  });
});

describe('D12 and forward compatibility', () => {
  it('direction binding: a machine→phone type sent by a phone is ignored and logged by type only', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const { approvalId } = w.machine.raiseApproval({ title: 'Deploy', detail: 'secret-detail' });
    phone.sendSealed({
      v: 1,
      type: 'approval.closed',
      ts: Date.now(),
      approvalId,
      resolution: 'allow',
    });
    phone.sendSealed({
      v: 1,
      type: 'dispatch.result',
      ts: Date.now(),
      requestId: rid(),
      ok: true,
      sessionId: 'x',
      canary: 'CANARY-123',
    });
    phone.send({ type: 'sessions.get' });
    await phone.waitFor(is('session.snapshot'));
    await phone.waitFor(
      (m) => m.type === 'session.snapshot',
      5000,
      phone.messages.findIndex(is('session.snapshot')) + 1,
    );
    expect(w.machine.pendingApprovals().map((a) => a.approvalId)).toEqual([approvalId]);
    const ignored = w.log.lines.filter((l) => l.code === 'ignored-wrong-direction');
    expect(ignored.map((l) => l.message)).toEqual([
      'ignored a message of type "approval.closed"',
      'ignored a message of type "dispatch.result"',
    ]);
    expect(JSON.stringify(w.log.lines)).not.toContain('CANARY-123');
  });

  it('unknown type or v is ignored and logged (type only)', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    phone.sendSealed({ v: 1, type: 'future.thing', ts: Date.now(), body: 'CANARY-456' });
    phone.sendSealed({
      v: 2,
      type: 'dispatch.request',
      ts: Date.now(),
      requestId: rid(),
      prompt: 'say: v2',
      worktree: false,
    });
    phone.send({ type: 'sessions.get' });
    await phone.waitFor(is('session.snapshot'));
    await phone.waitFor(
      (m) => m.type === 'session.snapshot',
      5000,
      phone.messages.findIndex(is('session.snapshot')) + 1,
    );
    expect(w.log.lines.filter((l) => l.code.startsWith('ignored-')).map((l) => l.code)).toEqual([
      'ignored-unknown-type',
      'ignored-unknown-version',
    ]);
    expect(w.machine.sessions()).toEqual([]);
    expect(JSON.stringify(w.log.lines)).not.toContain('CANARY-456');
  });

  it('E2, E3, E4 and E6 are announced', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const status = await phone.waitFor(is('machine.status'));
    expect(status.capabilities).toMatchObject({
      approvalRules: true,
      approvalEdit: true,
      interrupt: true,
      phones: true,
    });
  });
});

describe('transcript.get → transcript', () => {
  it('paging at the byte budget: oldest-first pages built from the newest, `more` while older remain, `before` pages older; every frame fits 16 KiB', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    writeFileSync(path.join(w.root, 'big.txt'), 'ü'.repeat(1500) + '\n');
    const r = await dispatch(phone, {
      prompt: Array.from({ length: 30 }, () => 'read: big.txt').join('\n'),
    });
    await finalOf(phone, r.sessionId!);
    const all = w.machine.transcript(r.sessionId!);
    expect(all).toHaveLength(31);
    const seen: number[] = [];
    let before: number | undefined;
    for (let pageNo = 0; pageNo < 50; pageNo++) {
      const requestId = rid();
      phone.send({
        type: 'transcript.get',
        requestId,
        sessionId: r.sessionId!,
        ...(before !== undefined ? { before } : {}),
      });
      const page = await phone.waitFor((m) => m.type === 'transcript' && m.requestId === requestId);
      if (page.type !== 'transcript') throw new Error('unreachable');
      const seqs = page.entries.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      if (before !== undefined) expect(Math.max(...seqs)).toBeLessThan(before);
      const frame = w.sent.find(
        (s) => s.message.type === 'transcript' && s.message.requestId === requestId,
      )!.frame;
      expect(utf8ByteLength(frame)).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);
      seen.unshift(...seqs);
      if (!page.more) break;
      // A full page: the next older entry would not have fit.
      expect(page.entries.length).toBeGreaterThan(1);
      before = seqs[0];
    }
    expect(seen).toEqual(all.map((e) => e.seq));
  });

  it('transcript records user prompts and assistant text; unknown session → empty page and an error', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const ghost = randomUUID();
    phone.send({ type: 'transcript.get', requestId: rid(), sessionId: ghost });
    expect(await phone.waitFor(is('transcript'))).toMatchObject({ sessionId: ghost, entries: [] });
    expect(await phone.waitFor(is('error'))).toMatchObject({ sessionId: ghost });
  });
});

describe('session.message', () => {
  it('steers a live session: a new turn with the text; a session that is not live → error pinned to it (no-remote-followup)', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'say: bye\nclose:' });
    await finalOf(phone, r.sessionId!);
    expect(w.machine.sessions()[0]).toMatchObject({ live: false, state: 'done' });
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: r.sessionId!,
      text: 'say: hello?',
    });
    expect(await phone.waitFor(is('error'))).toMatchObject({
      sessionId: r.sessionId,
      reason: 'no-remote-followup',
    });
    expect(w.machine.transcript(r.sessionId!).filter((e) => e.role === 'user')).toHaveLength(1);
    phone.send({ type: 'session.message', requestId: rid(), sessionId: randomUUID(), text: 'x' });
    expect(
      await phone.waitFor((m) => m.type === 'error' && m.sessionId !== r.sessionId),
    ).toMatchObject({ reason: 'no-remote-followup' });
  });

  it('message limits: > 8192 chars or > 10 KiB → message-too-long-*', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'say: hi' });
    await finalOf(phone, r.sessionId!);
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: r.sessionId!,
      text: 'b'.repeat(8193),
    });
    expect(await phone.waitFor(is('error'))).toMatchObject({
      reason: 'message-too-long-chars',
      sessionId: r.sessionId,
    });
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: r.sessionId!,
      text: '語'.repeat(3500),
    });
    expect(
      await phone.waitFor((m) => m.type === 'error' && m.reason === 'message-too-long-bytes'),
    ).toBeTruthy();
  });
});

describe('approvals and questions', () => {
  it("a local answer closes the phone's card with `local`; the first decision wins", async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'run: touch local.txt\nask: Pick | A | B' });
    const a = await phone.waitFor(is('approval.request'));
    expect(w.machine.answerApproval(a.approvalId, 'allow')).toEqual({ ok: true });
    expect(await phone.waitFor(is('approval.closed'))).toMatchObject({
      approvalId: a.approvalId,
      resolution: 'local',
    });
    expect(w.machine.answerApproval(a.approvalId, 'deny')).toMatchObject({
      ok: false,
      code: 'not-pending',
    });
    const q = await phone.waitFor(is('question.request'));
    expect(
      w.machine.answerQuestion(q.questionId, [{ itemId: 'q1', optionIds: ['1', '2'] }]),
    ).toMatchObject({ ok: false, code: 'bad-answer' });
    expect(w.machine.answerQuestion(q.questionId, [{ itemId: 'q1', optionIds: ['1'] }])).toEqual({
      ok: true,
    });
    expect(await phone.waitFor(is('question.closed'))).toMatchObject({
      questionId: q.questionId,
      resolution: 'local',
    });
    expect((await finalOf(phone, r.sessionId!)).summary).toContain('Asked "Pick": A');
    expect(existsSync(path.join(w.root, 'local.txt'))).toBe(true);
  });

  it('approval.request detail ≤ 8 KiB with the truncation suffix', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    w.machine.raiseApproval({ title: 'Big', detail: '長'.repeat(5000) });
    const a = await phone.waitFor(is('approval.request'));
    expect(utf8ByteLength(a.detail)).toBeLessThanOrEqual(8192);
    expect(a.detail.endsWith('…[truncated]')).toBe(true);
  });

  it('question prompts and labels are clamped like approval details', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    w.machine.raiseQuestion({
      items: [
        {
          id: 'a',
          prompt: 'p'.repeat(20_000),
          options: [{ id: 'o', label: 'L'.repeat(1000) }],
          multiSelect: false,
          allowFreeText: false,
        },
      ],
    });
    const q = await phone.waitFor(is('question.request'));
    expect(q.items[0]!.prompt.endsWith('…[truncated]')).toBe(true);
    expect(utf8ByteLength(q.items[0]!.prompt)).toBeLessThanOrEqual(8192);
    expect([...q.items[0]!.options[0]!.label].length).toBeLessThanOrEqual(200);
  });

  it('a phone "allow" is never invented: a session disposed while waiting closes its approval as superseded and its question as cancelled', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'run: touch never.txt' });
    const a = await phone.waitFor(is('approval.request'));
    expect(w.machine.disposeSession(r.sessionId!)).toEqual({ ok: true });
    expect(await phone.waitFor(is('approval.closed'))).toMatchObject({
      approvalId: a.approvalId,
      resolution: 'superseded',
    });
    await finalOf(phone, r.sessionId!);
    expect(existsSync(path.join(w.root, 'never.txt'))).toBe(false);
  });

  it('decrypting garbage: "re-pair needed" is visible, never a silent drop; it clears when a frame decrypts again', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    await phone.waitFor(is('machine.status'));
    phone.sendPayload(
      seal({ v: 1, type: 'sessions.get', ts: Date.now() }, new Uint8Array(32).fill(7)),
    );
    await new Promise<void>((resolve) => {
      const off = w.machine.on({ rePairNeeded: (n) => n && (off(), resolve()) });
    });
    expect(w.machine.status().rePairNeeded).toBe(true);
    expect(w.log.lines.find((l) => l.code === 're-pair-needed')).toMatchObject({ level: 'error' });
    phone.send({ type: 'sessions.get' });
    await phone.waitFor(
      is('session.snapshot'),
      5000,
      phone.messages.findIndex(is('session.snapshot')) + 1,
    );
    expect(w.machine.status().rePairNeeded).toBe(false);
  });
});
