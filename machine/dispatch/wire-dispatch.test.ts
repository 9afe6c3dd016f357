import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PROMPT_CHARS, type MachineMessage } from '../../protocol/index.ts';
import { dispatch, finalOf, is, relaySuite } from '../test-support/relay-suite.ts';
import { makeGitRepo } from '../test-support/git-repo.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';

const suite = relaySuite();
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('dispatch.request → dispatch.result', () => {
  it('cwd guard: a cwd outside allowedRoots is refused visibly with cwd-not-allowed, never clamped', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    for (const cwd of [w.dir, path.join(w.root, '..'), '/']) {
      const r = await dispatch(phone, { prompt: 'say: hi', cwd });
      expect(r).toMatchObject({ ok: false, reason: 'cwd-not-allowed' });
      expect(r.error).toContain('outside the allowed roots');
    }
    expect(w.machine.sessions()).toEqual([]);
    const ok = await dispatch(phone, { prompt: 'say: hi', cwd: w.root });
    expect(ok).toMatchObject({ ok: true });
    expect(w.machine.sessions()[0]).toMatchObject({
      cwd: w.root,
      dispatched: true,
      access: 'standard',
      live: true,
    });
  });

  it('no --root: allowedRoots [] and every dispatch refused with dispatch-disabled', async () => {
    const w = await suite.world({ roots: [] });
    const phone = await w.phone();
    expect(await phone.waitFor(is('machine.status'))).toMatchObject({ allowedRoots: [] });
    expect(await dispatch(phone, { prompt: 'say: hi' })).toMatchObject({
      ok: false,
      reason: 'dispatch-disabled',
    });
  });

  it('prompt limits: > 8192 chars → prompt-too-long-chars; CJK within the chars but > 10 KiB → prompt-too-long-bytes; title = the first 80 chars, ending in … when cut (SC4)', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    expect(await dispatch(phone, { prompt: 'a'.repeat(MAX_PROMPT_CHARS + 1) })).toMatchObject({
      ok: false,
      reason: 'prompt-too-long-chars',
    });
    // 4000 CJK characters: far under 8192 chars, but 12 000 UTF-8 bytes.
    expect(await dispatch(phone, { prompt: '漢'.repeat(4000) })).toMatchObject({
      ok: false,
      reason: 'prompt-too-long-bytes',
    });
    // Exactly at the byte limit is accepted: 5 + 3411 × 3 + 2 = 10240 bytes.
    const atLimit = 'say: ' + '字'.repeat(3411) + 'ab';
    const r = await dispatch(phone, { prompt: atLimit });
    expect(r.ok).toBe(true);
    const session = w.machine.sessions().find((s) => s.sessionId === r.sessionId)!;
    // SC4: a cut title ends in "…" within the 80 characters (no space after the first word: cut there).
    expect([...session.title]).toHaveLength(80);
    expect(session.title).toBe('say: ' + '字'.repeat(74) + '…');
  });

  it('full access: refused with full-access-disabled unless --allow-full-access; then the session keeps access:full for good', async () => {
    const off = await suite.world();
    const p1 = await off.phone();
    expect(await p1.waitFor(is('machine.status'))).toMatchObject({
      capabilities: { fullAccessDispatch: false },
    });
    expect(await dispatch(p1, { prompt: 'say: hi', access: 'full' })).toMatchObject({
      ok: false,
      reason: 'full-access-disabled',
    });
    expect(off.machine.sessions()).toEqual([]);

    const on = await suite.world({ allowFullAccess: true });
    const p2 = await on.phone();
    expect(await p2.waitFor(is('machine.status'))).toMatchObject({
      capabilities: { fullAccessDispatch: true },
    });
    const r = await dispatch(p2, { prompt: 'say: one', access: 'full' });
    expect(r.ok).toBe(true);
    await finalOf(p2, r.sessionId!);
    const from = p2.messages.length;
    p2.send({
      type: 'session.message',
      requestId: crypto.randomUUID(),
      sessionId: r.sessionId!,
      text: 'say: two',
    });
    await p2.waitFor((m) => m.type === 'turn.final' && m.summary === 'two', 5000, from);
    const updates = p2.messages
      .filter(is('session.update'))
      .filter((u) => u.session.sessionId === r.sessionId);
    expect(updates.length).toBeGreaterThan(2);
    expect(updates.every((u) => u.session.access === 'full')).toBe(true);
    // Never the default: a dispatch without access is standard even on this machine.
    const std = await dispatch(p2, { prompt: 'say: x' });
    expect(on.machine.sessions().find((s) => s.sessionId === std.sessionId)?.access).toBe(
      'standard',
    );
  });

  it('an unknown access value is refused visibly with bad-access-value', async () => {
    const w = await suite.world({ allowFullAccess: true });
    const phone = await w.phone();
    const requestId = crypto.randomUUID();
    phone.sendSealed({
      v: 1,
      type: 'dispatch.request',
      ts: Date.now(),
      requestId,
      prompt: 'say: x',
      worktree: false,
      access: 'root',
    });
    expect(
      await phone.waitFor((m) => m.type === 'dispatch.result' && m.requestId === requestId),
    ).toMatchObject({ ok: false, reason: 'bad-access-value' });
    expect(w.machine.sessions()).toEqual([]);
  });

  it('worktree:true inside a git repository: a real `git worktree add` for the session', async () => {
    const w = await suite.world();
    const repo = path.join(w.root, 'repo');
    mkdirSync(repo);
    makeGitRepo(repo);
    const phone = await w.phone();
    const r = await dispatch(phone, {
      prompt: 'write: made-here.txt\nhello\nclose:',
      cwd: repo,
      worktree: true,
    });
    expect(r).toMatchObject({ ok: true });
    expect(r.note).toBeUndefined();
    const session = w.machine.sessions().find((s) => s.sessionId === r.sessionId)!;
    expect(session.cwd.startsWith(path.join(repo, '.dsh-worktrees') + path.sep)).toBe(true);
    expect(execFileSync('git', ['worktree', 'list'], { cwd: repo, encoding: 'utf8' })).toContain(
      session.cwd,
    );
    // The write happens in the worktree, never in the user's checkout.
    const ask = await phone.waitFor(is('approval.request'));
    phone.send({
      type: 'approval.respond',
      requestId: crypto.randomUUID(),
      approvalId: ask.approvalId,
      decision: 'allow',
    });
    await finalOf(phone, r.sessionId!);
    expect(readFileSync(path.join(session.cwd, 'made-here.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(path.join(repo, 'made-here.txt'))).toBe(false);
  });

  it('H4: worktree:true where the repository reaches outside the allowed root: refused with cwd-not-allowed, no session, no branch', async () => {
    const t = makeTmpDir();
    cleanups.push(t.cleanup);
    const repo = path.join(t.dir, 'repo');
    mkdirSync(path.join(repo, 'sub'), { recursive: true });
    makeGitRepo(repo);
    const w = await suite.world({ roots: [path.join(repo, 'sub')] });
    const phone = await w.phone();
    const r = await dispatch(phone, {
      prompt: 'say: hi',
      cwd: path.join(repo, 'sub'),
      worktree: true,
    });
    expect(r).toMatchObject({ ok: false, reason: 'cwd-not-allowed' });
    expect(r.error).toContain('outside the allowed root');
    expect(w.machine.sessions()).toEqual([]);
    expect(
      execFileSync('git', ['branch', '--list', 'dispatch/*'], { cwd: repo, encoding: 'utf8' }),
    ).toBe('');
    expect(existsSync(path.join(repo, '.dsh-worktrees'))).toBe(false);
  });

  it('worktree:true outside a repository: runs without one, ok with a note and reason not-a-git-repo', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'say: hi', cwd: w.root, worktree: true });
    expect(r).toMatchObject({
      ok: true,
      note: 'ran without worktree: not a git repo',
      reason: 'not-a-git-repo',
    });
    expect(w.machine.sessions()[0]?.cwd).toBe(w.root);
  });
});

describe('the scripted agent over the wire', () => {
  it('the default demo: list, read, ask, run (approval), write (approval), summary; tool output feeds transcript and summary', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    execFileSync('sh', ['-c', 'echo "# Demo readme" > README.md'], { cwd: w.root });
    const r = await dispatch(phone, { prompt: 'Please tidy up this folder' });
    expect(r.ok).toBe(true);
    const q = await phone.waitFor(is('question.request'));
    expect(q.items[0]).toMatchObject({
      options: [
        { id: '1', label: 'Short' },
        { id: '2', label: 'Detailed' },
      ],
      multiSelect: false,
    });
    phone.send({
      type: 'question.respond',
      requestId: crypto.randomUUID(),
      questionId: q.questionId,
      answers: [{ itemId: q.items[0]!.id, optionIds: ['1'] }],
    });
    const run = await phone.waitFor(
      (m) => m.type === 'approval.request' && m.title === 'Run a command',
    );
    phone.send({
      type: 'approval.respond',
      requestId: crypto.randomUUID(),
      approvalId: (run as { approvalId: string }).approvalId,
      decision: 'allow',
    });
    const write = await phone.waitFor(
      (m) => m.type === 'approval.request' && m.title.startsWith('Write'),
    );
    phone.send({
      type: 'approval.respond',
      requestId: crypto.randomUUID(),
      approvalId: (write as { approvalId: string }).approvalId,
      decision: 'allow',
    });
    const final = await finalOf(phone, r.sessionId!);
    expect(final).toMatchObject({ ok: true });
    expect(final.reason).toBeUndefined();
    expect(final.summary).toContain('Read README.md');
    expect(final.summary).toContain('Ran `ls -la` (exit 0)');
    expect(final.summary).toContain('Asked "How detailed should the summary be?": Short');
    expect(readFileSync(path.join(w.root, 'DISPATCH-SUMMARY.md'), 'utf8')).toContain(
      '# Dispatch summary',
    );
    const done = phone.messages.filter(is('session.update')).at(-1)!.session;
    expect(done).toMatchObject({
      state: 'done',
      live: true,
      steps: [
        { tool: 'list' },
        { tool: 'read' },
        { tool: 'ask' },
        { tool: 'run' },
        { tool: 'write' },
      ],
    });
    expect(done.activity).toBeUndefined();
    const transcript = w.machine.transcript(r.sessionId!);
    expect(transcript[0]).toMatchObject({ role: 'user', text: 'Please tidy up this folder' });
    expect(transcript.some((e) => e.role === 'assistant' && e.text.includes('# Demo readme'))).toBe(
      true,
    );
  });

  it('U5: the demo after a denied write never claims it wrote the file: transcript, steps and summary say the write was denied', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'Please tidy up this folder' });
    const decide = async (pred: (m: MachineMessage) => boolean, decision: 'allow' | 'deny') => {
      const a = (await phone.waitFor(pred)) as Extract<
        MachineMessage,
        { type: 'approval.request' }
      >;
      phone.send({
        type: 'approval.respond',
        requestId: crypto.randomUUID(),
        approvalId: a.approvalId,
        decision,
      });
    };
    const q = await phone.waitFor(is('question.request'));
    phone.send({
      type: 'question.respond',
      requestId: crypto.randomUUID(),
      questionId: q.questionId,
      answers: [{ itemId: 'q1', optionIds: ['2'] }],
    });
    await decide((m) => m.type === 'approval.request' && m.title === 'Run a command', 'allow');
    await decide((m) => m.type === 'approval.request' && m.title.startsWith('Write'), 'deny');
    const final = await finalOf(phone, r.sessionId!);
    expect(existsSync(path.join(w.root, 'DISPATCH-SUMMARY.md'))).toBe(false);
    expect(final.summary).toContain('Denied: DISPATCH-SUMMARY.md was not written.');
    expect(final.summary).toContain(
      'Looked around the folder; DISPATCH-SUMMARY.md was not written (denied).',
    );
    const said = w.machine.transcript(r.sessionId!).map((e) => e.text);
    for (const text of [final.summary, ...said]) expect(text).not.toMatch(/wrote DISPATCH/i);
    expect(said).toContain('Denied: DISPATCH-SUMMARY.md was not written.');
    const done = phone.messages.filter(is('session.update')).at(-1)!.session;
    expect(done.steps?.map((x) => x.tool)).toEqual(['list', 'ask', 'run', 'write (denied)']);
  });

  it('ask-multi and ask-text: multi-select and free-text questions, answered from the phone', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'ask-multi: Which? | A | B | C\nask-text: Why?' });
    const multi = await phone.waitFor(is('question.request'));
    expect(multi.items[0]).toMatchObject({ multiSelect: true, allowFreeText: false });
    phone.send({
      type: 'question.respond',
      requestId: crypto.randomUUID(),
      questionId: multi.questionId,
      answers: [{ itemId: 'q1', optionIds: ['1', '3'] }],
    });
    const text = await phone.waitFor(
      (m) => m.type === 'question.request' && m.questionId !== multi.questionId,
    );
    expect(text.type === 'question.request' && text.items[0]).toMatchObject({
      options: [],
      allowFreeText: true,
    });
    phone.send({
      type: 'question.respond',
      requestId: crypto.randomUUID(),
      questionId: (text as { questionId: string }).questionId,
      answers: [{ itemId: 'q1', optionIds: [], freeText: 'because 理由' }],
    });
    expect((await finalOf(phone, r.sessionId!)).summary).toBe(
      'Asked "Which?": A, C\nAsked "Why?": because 理由',
    );
  });

  it('U5: a denied approval never runs the tool; transcript, steps and summary say it was denied; the turn goes on', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'run: touch ran.txt\nsay: after' });
    const a = await phone.waitFor(is('approval.request'));
    expect(a.detail).toContain('touch ran.txt');
    phone.send({
      type: 'approval.respond',
      requestId: crypto.randomUUID(),
      approvalId: a.approvalId,
      decision: 'deny',
    });
    const final = await finalOf(phone, r.sessionId!);
    expect(final.summary).toBe('Denied: `touch ran.txt` was not run.\nafter');
    expect(existsSync(path.join(w.root, 'ran.txt'))).toBe(false);
    expect(w.machine.transcript(r.sessionId!).map((e) => e.text)).toContain(
      'Denied: `touch ran.txt` was not run.',
    );
    const last = phone.messages.filter(is('session.update')).at(-1)!.session;
    expect(last.steps).toEqual([{ tool: 'run (denied)' }]);
  });

  it('E11: a deny with a message tells the agent: the tool does not run and the transcript and summary carry the words', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'run: touch ran.txt\nsay: after' });
    const a = await phone.waitFor(is('approval.request'));
    phone.send({
      type: 'approval.respond',
      requestId: crypto.randomUUID(),
      approvalId: a.approvalId,
      decision: 'deny',
      message: 'use the test folder instead 谢谢',
    });
    const denied =
      'Denied: `touch ran.txt` was not run.\nThe owner said: use the test folder instead 谢谢';
    const final = await finalOf(phone, r.sessionId!);
    expect(final.summary).toBe(`${denied}\nafter`);
    expect(existsSync(path.join(w.root, 'ran.txt'))).toBe(false);
    expect(w.machine.transcript(r.sessionId!).map((e) => e.text)).toContain(denied);
  });

  it('turn.final carries reason only when the summary is a placeholder (no-assistant-text)', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r1 = await dispatch(phone, { prompt: 'sleep: 0' });
    expect(await finalOf(phone, r1.sessionId!)).toMatchObject({
      ok: true,
      reason: 'no-assistant-text',
    });
    const r2 = await dispatch(phone, { prompt: 'say: real text' });
    const f2 = await finalOf(phone, r2.sessionId!);
    expect(f2).toMatchObject({ ok: true, summary: 'real text' });
    expect(f2.reason).toBeUndefined();
  });

  it('fail: ends the turn with ok:false and an error pinned to the session; a script syntax error too', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, { prompt: 'say: start\nfail: the build broke' });
    expect(await finalOf(phone, r.sessionId!)).toMatchObject({
      ok: false,
      summary: 'start\nthe build broke',
    });
    expect(
      await phone.waitFor((m) => m.type === 'error' && m.sessionId === r.sessionId),
    ).toMatchObject({ context: 'turn' });
    expect(w.machine.sessions().find((s) => s.sessionId === r.sessionId)?.state).toBe('error');
    const bad = await dispatch(phone, { prompt: 'say: a\nthis is not a directive' });
    expect((await finalOf(phone, bad.sessionId!)).summary).toContain('line 2: not a directive');
  });

  it('turn.final summary ≤ 4 KiB, truncated with the suffix', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const r = await dispatch(phone, {
      prompt: Array.from({ length: 60 }, (_, i) => `say: line ${i} ${'x'.repeat(90)}`).join('\n'),
    });
    const final = await finalOf(phone, r.sessionId!);
    expect(Buffer.byteLength(final.summary)).toBeLessThanOrEqual(4096);
    expect(final.summary.endsWith('…[truncated]')).toBe(true);
  });

  it('E10: the machine announces its agents (the scripted one by default); a dispatch naming another is refused with agent-unavailable and makes no session; naming mock runs it', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const status = await phone.waitFor(is('machine.status'));
    expect(status.capabilities?.agents).toEqual(['mock']);
    const from = phone.messages.length;
    phone.send({
      type: 'dispatch.request',
      requestId: 'e10-unknown-agent',
      prompt: 'say: hi',
      worktree: false,
      agent: 'claude',
    });
    const refused = await phone.waitFor(
      (m) => m.type === 'dispatch.result' && m.requestId === 'e10-unknown-agent',
      5000,
      from,
    );
    expect(refused).toMatchObject({ ok: false, reason: 'agent-unavailable' });
    expect(w.machine.sessions()).toEqual([]);
    phone.send({
      type: 'dispatch.request',
      requestId: 'e10-mock-agent',
      prompt: 'say: hi',
      worktree: false,
      agent: 'mock',
    });
    const ok = await phone.waitFor(
      (m) => m.type === 'dispatch.result' && m.requestId === 'e10-mock-agent',
    );
    expect(ok).toMatchObject({ ok: true });
    expect(w.machine.sessions()[0]).toMatchObject({ agent: 'mock' });
  });
});
