import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalScope, MachineMessage } from '../../protocol/index.ts';
import { runDeskLine } from '../desk/desk.ts';
import { makeGitRepo } from '../test-support/git-repo.ts';
import { dispatch, finalOf, is, relaySuite, rid } from '../test-support/relay-suite.ts';
import type { TestPhone } from '../test-support/test-phone.ts';
import { until } from '../../testkit/until.ts';

// E2 (remembered approvals) and E3 (allow with changes) on the machine side, against a real relay
// process with the test phone; a restart is a new machine on the same state dir.

const suite = relaySuite();
type Request = Extract<MachineMessage, { type: 'approval.request' }>;

/** The next approval.request after `from`. */
const nextApproval = (phone: TestPhone, from: number) =>
  phone.waitFor(is('approval.request'), 8000, from);

/** Answers `a` and returns what the machine answered: approval.closed or an error about it. */
async function respond(
  phone: TestPhone,
  a: Request,
  fields: { decision?: 'allow' | 'deny'; scope?: ApprovalScope; edited?: string } = {},
) {
  const from = phone.messages.length;
  phone.send({
    type: 'approval.respond',
    requestId: rid(),
    approvalId: a.approvalId,
    decision: fields.decision ?? 'allow',
    ...(fields.scope !== undefined ? { scope: fields.scope } : {}),
    ...(fields.edited !== undefined ? { edited: fields.edited } : {}),
  });
  return phone.waitFor(
    (m) =>
      (m.type === 'approval.closed' && m.approvalId === a.approvalId) ||
      (m.type === 'error' && m.context === a.approvalId),
    5000,
    from,
  );
}

async function rulesOf(phone: TestPhone) {
  const requestId = rid();
  const from = phone.messages.length;
  phone.send({ type: 'rules.get', requestId });
  return (
    await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'rules' }> =>
        m.type === 'rules' && m.requestId === requestId,
      5000,
      from,
    )
  ).rules;
}

const approvalsSince = (phone: TestPhone, from: number) =>
  phone.messages.slice(from).filter(is('approval.request'));

describe('E2: remembered approvals', () => {
  it('E2: every approval.request names its tool; a write inside the folder offers session and always, a simple command session only, a risky one nothing', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const from = phone.messages.length;
    await dispatch(phone, {
      prompt:
        'write: src/a.ts\nx\nrun: npm test --silent\nrun: rm -rf build\nwrite: ../elsewhere.txt\nx',
    });
    const write = await nextApproval(phone, from);
    expect(write).toMatchObject({
      tool: 'write',
      rule: { key: 'write: src/**', scopes: ['session', 'always'] },
    });
    expect(write.editable).toBeUndefined();
    expect(write.risk).toBeUndefined();
    await respond(phone, write);
    const run = await nextApproval(phone, phone.messages.indexOf(write) + 1);
    expect(run).toMatchObject({
      tool: 'run',
      rule: { key: 'run: npm test --silent', scopes: ['session'] },
      editable: { label: 'Command', value: 'npm test --silent' },
    });
    expect(run.risk).toBeUndefined();
    await respond(phone, run, { decision: 'deny' });
    const rm = await nextApproval(phone, phone.messages.indexOf(run) + 1);
    expect(rm.tool).toBe('run');
    expect(rm.rule).toBeUndefined();
    // E11: a request offered no rule says why.
    expect(rm.risk).toEqual({ reason: 'recursive-delete' });
    await respond(phone, rm, { decision: 'deny' });
    const outside = await nextApproval(phone, phone.messages.indexOf(rm) + 1);
    expect(outside.tool).toBe('write');
    expect(outside.rule).toBeUndefined();
    expect(outside.risk).toEqual({ reason: 'outside-folder' });
  });

  it('E2: a session rule for `git reset` does not allow `git reset --hard`: it is asked, under its own exact key, and a deny keeps the work', async () => {
    const w = await suite.world();
    makeGitRepo(w.root);
    writeFileSync(path.join(w.root, 'README.md'), 'unsaved work\n');
    const phone = await w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'run: git reset\nrun: git reset --hard' });
    const reset = await nextApproval(phone, from);
    expect(reset.rule).toEqual({ key: 'run: git reset', scopes: ['session'] });
    expect(await respond(phone, reset, { scope: 'session' })).toMatchObject({
      resolution: 'allow',
    });
    const hard = await nextApproval(phone, phone.messages.indexOf(reset) + 1);
    expect(hard.rule).toEqual({ key: 'run: git reset --hard', scopes: ['session'] });
    expect(await respond(phone, hard, { decision: 'deny' })).toMatchObject({ resolution: 'deny' });
    await finalOf(phone, r.sessionId!);
    expect(readFileSync(path.join(w.root, 'README.md'), 'utf8')).toBe('unsaved work\n');
    expect(w.machine.rules().map((x) => x.key)).toEqual(['run: git reset']);
  });

  it('E2: a session rule for `find .` does not allow `find . -delete`: it is asked, with no rule and risk recursive-delete, and a deny deletes nothing', async () => {
    const w = await suite.world();
    writeFileSync(path.join(w.root, 'keep.txt'), 'keep\n');
    const phone = await w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'run: find .\nrun: find . -delete' });
    const find = await nextApproval(phone, from);
    expect(find.rule).toEqual({ key: 'run: find *', scopes: ['session'] });
    expect(await respond(phone, find, { scope: 'session' })).toMatchObject({ resolution: 'allow' });
    const del = await nextApproval(phone, phone.messages.indexOf(find) + 1);
    expect(del.rule).toBeUndefined();
    expect(del.risk).toEqual({ reason: 'recursive-delete' });
    expect(await respond(phone, del, { decision: 'deny' })).toMatchObject({ resolution: 'deny' });
    await finalOf(phone, r.sessionId!);
    expect(existsSync(path.join(w.root, 'keep.txt'))).toBe(true);
  });

  it('E2: allowed for the session, the next matching request runs without asking, and the transcript and steps say "allowed by rule"; another session still asks', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, {
      prompt: 'run: mkdir -p first\nrun: rmdir first\nrun: mkdir -p first',
    });
    const a = await nextApproval(phone, from);
    expect(await respond(phone, a, { scope: 'session' })).toMatchObject({
      type: 'approval.closed',
      resolution: 'allow',
    });
    const changed = await phone.waitFor(
      (m) => m.type === 'rules' && m.requestId === undefined && m.rules.length === 1,
      5000,
      from,
    );
    expect(changed).toMatchObject({
      rules: [
        { key: 'run: mkdir -p first', tool: 'run', scope: 'session', sessionId: r.sessionId },
      ],
    });
    // `rmdir first` is another command: asked, and allowed once.
    const rmdir = await nextApproval(phone, phone.messages.indexOf(a) + 1);
    expect(rmdir.rule?.key).toBe('run: rmdir first');
    await respond(phone, rmdir);
    const final = await finalOf(phone, r.sessionId!);
    expect(final.ok).toBe(true);
    expect(approvalsSince(phone, from)).toHaveLength(2);
    expect(existsSync(path.join(w.root, 'first'))).toBe(true);
    const texts = w.machine.transcript(r.sessionId!).map((e) => e.text);
    expect(texts).toContain('Allowed by rule run: mkdir -p first.');
    const session = w.machine.sessions().find((s) => s.sessionId === r.sessionId)!;
    expect(session.steps).toEqual([
      { tool: 'run', count: 2 },
      { tool: 'run (allowed by rule run: mkdir -p first)' },
    ]);
    expect((await rulesOf(phone))[0]).toMatchObject({ uses: 1 });

    const other = phone.messages.length;
    await dispatch(phone, { prompt: 'run: mkdir -p first' });
    expect((await nextApproval(phone, other)).rule?.key).toBe('run: mkdir -p first');
  });

  it('E2: scope-not-offered for a scope the request did not offer and for any scope on a deny; the approval stays pending', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'run: mkdir -p x\nrun: mkdir -p y' });
    const a = await nextApproval(phone, from);
    expect(await respond(phone, a, { scope: 'always' })).toMatchObject({
      type: 'error',
      reason: 'scope-not-offered',
      sessionId: r.sessionId,
    });
    expect(await respond(phone, a, { decision: 'deny', scope: 'session' })).toMatchObject({
      type: 'error',
      reason: 'scope-not-offered',
    });
    expect(w.machine.pendingApprovals().map((p) => p.approvalId)).toEqual([a.approvalId]);
    expect(await rulesOf(phone)).toEqual([]);
    // A deny is never remembered: the same request asks again.
    expect(await respond(phone, a, { decision: 'deny' })).toMatchObject({ resolution: 'deny' });
    const again = await nextApproval(phone, phone.messages.indexOf(a) + 1);
    expect(again.rule?.key).toBe('run: mkdir -p y');
    expect(await rulesOf(phone)).toEqual([]);
  });

  it('E2: an always rule survives a restart and allows under its root, never under another root', async () => {
    const w = await suite.world({ roots: [] });
    // Two allowed roots: the world's own and a sibling.
    const other = path.join(w.dir, 'other-root');
    mkdirSync(other);
    // No notes/ folder: the write makes it, as an agent's Write tool does.
    await w.restart({ roots: [w.root, other] });
    const phone = await w.phone();
    let from = phone.messages.length;
    await dispatch(phone, { prompt: 'write: notes/a.md\nfirst' });
    const a = await nextApproval(phone, from);
    expect(await respond(phone, a, { scope: 'always' })).toMatchObject({ resolution: 'allow' });
    await until(() => existsSync(path.join(w.root, 'notes/a.md')), 'notes/a.md written');
    const [rule] = await rulesOf(phone);
    expect(rule).toMatchObject({ scope: 'always', key: 'write: notes/**', root: w.root, uses: 0 });

    await w.restart({ roots: [w.root, other] });
    expect(w.machine.rules()).toEqual([rule]);
    from = phone.messages.length;
    const same = await dispatch(phone, { prompt: 'write: notes/b.md\nsecond' });
    await finalOf(phone, same.sessionId!);
    expect(readFileSync(path.join(w.root, 'notes/b.md'), 'utf8')).toBe('second\n');
    expect(approvalsSince(phone, from)).toEqual([]);
    expect(w.machine.rules()[0]!.uses).toBe(1);

    from = phone.messages.length;
    await dispatch(phone, { prompt: 'write: notes/c.md\nthird', cwd: other });
    const asked = await nextApproval(phone, from);
    expect(asked.rule).toEqual({ key: 'write: notes/**', scopes: ['session', 'always'] });
    expect(existsSync(path.join(other, 'notes/c.md'))).toBe(false);
  });

  it('E2: rule.revoke takes effect for the next request, is answered with the new list, and the desk lists and revokes too', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    let from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'write: a.txt\n1' });
    await respond(phone, await nextApproval(phone, from), { scope: 'always' });
    await finalOf(phone, r.sessionId!);
    // While the rule stands, the same write in a new session is not asked.
    from = phone.messages.length;
    const ruled = await dispatch(phone, { prompt: 'write: a.txt\nby rule' });
    await finalOf(phone, ruled.sessionId!);
    expect(approvalsSince(phone, from)).toEqual([]);
    expect(readFileSync(path.join(w.root, 'a.txt'), 'utf8')).toBe('by rule\n');
    const [rule] = await rulesOf(phone);
    expect(runDeskLine(w.machine, 'rules')).toEqual([
      `rule ${rule!.ruleId.slice(0, 8)}  always  write: a.txt  (1 uses; under ${w.root})`,
    ]);

    const requestId = rid();
    from = phone.messages.length;
    phone.send({ type: 'rule.revoke', requestId, ruleId: rule!.ruleId });
    expect(
      await phone.waitFor((m) => m.type === 'rules' && m.requestId === requestId, 5000, from),
    ).toMatchObject({ rules: [] });
    from = phone.messages.length;
    await dispatch(phone, { prompt: 'write: a.txt\n2' });
    const asked = await nextApproval(phone, from);
    expect(readFileSync(path.join(w.root, 'a.txt'), 'utf8')).toBe('by rule\n');
    await respond(phone, asked, { scope: 'session' });
    const [sessionRule] = await rulesOf(phone);

    // An unknown rule (or one revoked already) changes nothing: answered with the list as it is.
    const unknown = rid();
    from = phone.messages.length;
    phone.send({ type: 'rule.revoke', requestId: unknown, ruleId: rule!.ruleId });
    expect(
      await phone.waitFor((m) => m.type === 'rules' && m.requestId === unknown, 5000, from),
    ).toMatchObject({ rules: [sessionRule] });

    from = phone.messages.length;
    expect(runDeskLine(w.machine, `revoke ${sessionRule!.ruleId.slice(0, 6)}`)).toEqual([
      `revoked rule ${sessionRule!.ruleId.slice(0, 8)} (the next such request asks again)`,
    ]);
    expect(
      await phone.waitFor((m) => m.type === 'rules' && m.rules.length === 0, 5000, from),
    ).toBeTruthy();
    expect(runDeskLine(w.machine, 'rules')).toEqual(['no remembered approvals']);
  });

  it('E2: a session rule ends with its session', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'run: mkdir -p a' });
    await respond(phone, await nextApproval(phone, from), { scope: 'session' });
    await finalOf(phone, r.sessionId!);
    expect(w.machine.rules()).toHaveLength(1);
    w.machine.disposeSession(r.sessionId!);
    expect(w.machine.rules()).toEqual([]);
  });
});

describe('E3: allow with changes', () => {
  it('E3: an allowed edit runs exactly the edited command and the original never runs; the transcript keeps both; approval.closed says edited', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'run: touch original.txt' });
    const a = await nextApproval(phone, from);
    expect(a.editable).toEqual({ label: 'Command', value: 'touch original.txt' });
    expect(await respond(phone, a, { edited: 'touch edited.txt' })).toMatchObject({
      type: 'approval.closed',
      resolution: 'allow',
      edited: true,
    });
    const final = await finalOf(phone, r.sessionId!);
    expect(existsSync(path.join(w.root, 'edited.txt'))).toBe(true);
    expect(existsSync(path.join(w.root, 'original.txt'))).toBe(false);
    expect(final.summary).toContain('Ran `touch edited.txt`');
    const texts = w.machine.transcript(r.sessionId!).map((e) => e.text);
    expect(texts).toContain(
      'Edited on the phone before it was allowed:\nasked: touch original.txt\nruns:  touch edited.txt',
    );
  });

  it('E3 + E11: an edit into a risky command needs presence under risky though the request did not', async () => {
    const w = await suite.world({ requirePresence: 'risky' });
    const phone = await w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'run: touch asked.txt' });
    const a = await nextApproval(phone, from);
    expect(a.presence).toBeUndefined();
    expect(a.risk).toBeUndefined();
    for (const edited of ['touch a.txt; touch b.txt', 'curl http://127.0.0.1:9/', 'find . -delete'])
      expect(await respond(phone, a, { edited })).toMatchObject({
        type: 'error',
        reason: 'presence-required',
        context: a.approvalId,
      });
    expect(w.machine.pendingApprovals().map((p) => p.approvalId)).toEqual([a.approvalId]);
    // An edit that is still a plain command needs nothing more than the request did.
    expect(await respond(phone, a, { edited: 'touch edited.txt' })).toMatchObject({
      type: 'approval.closed',
      edited: true,
    });
    await finalOf(phone, r.sessionId!);
    expect(existsSync(path.join(w.root, 'edited.txt'))).toBe(true);
    expect(existsSync(path.join(w.root, 'asked.txt'))).toBe(false);
    expect(existsSync(path.join(w.root, 'b.txt'))).toBe(false);
  });

  it('E3 + E11: the transcript says when an allowed edit is risky although the request was not', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    const from = phone.messages.length;
    const r = await dispatch(phone, { prompt: 'run: touch asked.txt' });
    const a = await nextApproval(phone, from);
    await respond(phone, a, { edited: 'touch a.txt; touch b.txt' });
    await finalOf(phone, r.sessionId!);
    expect(existsSync(path.join(w.root, 'b.txt'))).toBe(true);
    expect(w.machine.transcript(r.sessionId!).map((e) => e.text)).toContain(
      'Edited on the phone before it was allowed:\nasked: touch asked.txt\nruns:  touch a.txt; touch b.txt\n(the edit is risky: not-simple)',
    );
  });

  it('E3: not-editable for an edit of a write and for an edit with deny; an edit is never remembered; the approval stays pending', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    let from = phone.messages.length;
    await dispatch(phone, { prompt: 'write: a.txt\nx\nrun: mkdir -p b' });
    const write = await nextApproval(phone, from);
    expect(await respond(phone, write, { edited: 'something else' })).toMatchObject({
      type: 'error',
      reason: 'not-editable',
    });
    expect(w.machine.pendingApprovals().map((p) => p.approvalId)).toEqual([write.approvalId]);
    from = phone.messages.length;
    await respond(phone, write);
    const run = await nextApproval(phone, from);
    expect(await respond(phone, run, { decision: 'deny', edited: 'mkdir c' })).toMatchObject({
      reason: 'not-editable',
    });
    expect(await respond(phone, run, { scope: 'session', edited: 'mkdir c' })).toMatchObject({
      reason: 'scope-not-offered',
    });
    expect(w.machine.pendingApprovals().map((p) => p.approvalId)).toEqual([run.approvalId]);
    expect(readFileSync(path.join(w.root, 'a.txt'), 'utf8')).toBe('x\n');
  });
});
