import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../../protocol/index.ts';
import { makeTmpDir, type TmpDir } from '../../../testkit/tmp.ts';
import { until } from '../../../testkit/until.ts';
import { geminiTestEnv, startFakeGemini, type FakeGemini } from '../../test-support/fake-gemini.ts';
import { dispatch, relaySuite, rid } from '../../test-support/relay-suite.ts';
import type { TestPhone } from '../../test-support/test-phone.ts';
import { makeManualTimers } from '../../../testkit/manual-clock.ts';
import type { AgentContext } from '../agent.ts';
import { geminiProvider, resolveGemini } from './provider.ts';
import { IDLE_LIMIT_MS, openAcpSession } from './session.ts';
import { liveProcesses } from '../../../testkit/process-group.ts';

// E10 with the REAL Gemini CLI (`gemini --acp`, the packaged @google/gemini-cli) against a
// scripted Gemini API server, through a real relay and the test phone: the ACP adapter's
// approvals (picked by option kind), diffs, deny, Stop (E4), usage, and faults.

const suite = relaySuite();
let fake: FakeGemini;
let home: TmpDir;

beforeAll(async () => {
  fake = await startFakeGemini();
  home = makeTmpDir('gemini-home-');
});
afterAll(async () => {
  await fake.close();
  home.cleanup();
});

const env = () => ({ PATH: process.env.PATH ?? '', ...geminiTestEnv(home.dir, fake.url) });
const agents = () => [geminiProvider({ env: env() })];
// E4: the Stop backstop's clock held: a turn that ends stopped was ended by the agent's own
// answer to session/cancel. How fast is measured by `npm run bench:agents`, not asserted here.
const heldBackstop = () => [geminiProvider({ env: env(), timers: makeManualTimers() })];

const respond = (phone: TestPhone, approvalId: string, decision: 'allow' | 'deny') =>
  phone.send({ type: 'approval.respond', requestId: rid(), approvalId, decision });
const approvalOf = (phone: TestPhone, sessionId: string, from = 0) =>
  phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'approval.request' }> =>
      m.type === 'approval.request' && m.sessionId === sessionId,
    30_000,
    from,
  );
const finalFor = (phone: TestPhone, sessionId: string, from = 0) =>
  phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'turn.final' }> =>
      m.type === 'turn.final' && m.sessionId === sessionId,
    30_000,
    from,
  );
/** What the CLI sent back for the last tool call of a conversation. */
const lastToolResult = (marker: string): string =>
  JSON.stringify(fake.requests(marker).at(-1)?.contents?.at(-1) ?? '');

/** Live processes whose command line contains `needle`. */
const running = (needle: string) => liveProcesses({ cmdline: needle });
/** Processes whose folder is `dir` (the agent and what it started there). */
const processesIn = (dir: string) => liveProcesses({ cwd: dir });

describe('E10: Gemini CLI over ACP behind the phone', () => {
  it("E10: a shell command becomes an approval with the agent's tool kind and the command; allow (allow_once) runs it; the final text, usage and model reach the session", async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-RUN', [
      { call: 'run_shell_command', args: { command: 'echo hi > out.txt', description: 'write' } },
      { text: 'Wrote out.txt for you.', usage: { input: 300, output: 40 } },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-RUN write a file' });
    expect(r.ok).toBe(true);
    const a = await approvalOf(phone, r.sessionId!);
    expect(a.tool).toBe('execute');
    expect(a.detail).toContain('echo hi > out.txt');
    // E3: ACP's answer carries no changed input, so nothing is editable.
    expect(a.editable).toBeUndefined();
    respond(phone, a.approvalId, 'allow');
    const final = await finalFor(phone, r.sessionId!);
    expect(final).toMatchObject({ ok: true, summary: 'Wrote out.txt for you.' });
    expect(readFileSync(path.join(w.root, 'out.txt'), 'utf8')).toBe('hi\n');
    const update = await phone.waitFor(
      (m) =>
        m.type === 'session.update' &&
        m.session.sessionId === r.sessionId &&
        m.session.usage !== undefined &&
        m.session.state === 'done',
    );
    expect(update.type === 'session.update' && update.session).toMatchObject({
      agent: 'gemini',
      model: expect.any(String),
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
    if (update.type === 'session.update')
      expect(update.session.usage!.inputTokens).toBeGreaterThanOrEqual(300);
    const transcript = w.machine.transcript(r.sessionId!).map((e) => e.text);
    expect(transcript).toContain('execute: echo hi > out.txt');
    expect(transcript).toContain('Wrote out.txt for you.');
  }, 60_000);

  it('E10: a file write shows a unified diff; a deny (reject_once) leaves no file and Gemini hears it was refused', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    const file = path.join(w.root, 'notes.md');
    fake.script('MARK-WRITE', [
      { call: 'write_file', args: { file_path: file, content: 'one\ntwo\n' } },
      { text: 'The write was refused, so I left it.' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-WRITE write notes' });
    const a = await approvalOf(phone, r.sessionId!);
    expect(a.tool).toBe('edit');
    expect(a.editable).toBeUndefined();
    expect(a.detail).toContain('--- /dev/null');
    expect(a.detail).toContain('+++ b/notes.md');
    expect(a.detail).toContain('+one');
    expect(a.detail).toContain('+two');
    respond(phone, a.approvalId, 'deny');
    const final = await finalFor(phone, r.sessionId!);
    expect(final.summary).toBe('The write was refused, so I left it.');
    expect(existsSync(file)).toBe(false);
    expect(lastToolResult('MARK-WRITE')).toMatch(/functionResponse/);
  }, 60_000);

  it("E4: Stop during a long command ends the turn by the cancel (the backstop's clock held): turn.final says interrupted, the command's process is gone, and a reply continues the conversation", async () => {
    const w = await suite.world({ agents: heldBackstop() });
    const phone = await w.phone();
    fake.script('MARK-STOP', [
      {
        call: 'run_shell_command',
        args: { command: 'node -e "setTimeout(()=>{},30001)"', description: 'wait' },
      },
      { text: 'Picking up after the stop.' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-STOP wait' });
    const a = await approvalOf(phone, r.sessionId!);
    respond(phone, a.approvalId, 'allow');
    await until(() => running('30001').length > 0, 'the command to run', 20_000);
    phone.send({ type: 'session.interrupt', requestId: rid(), sessionId: r.sessionId! });
    const final = await finalFor(phone, r.sessionId!);
    expect(final).toMatchObject({ ok: false, reason: 'interrupted' });
    await until(() => running('30001').length === 0, 'the command to end', 5000);
    expect(w.machine.sessions().find((s) => s.sessionId === r.sessionId)?.state).toBe('idle');
    const from = phone.messages.length;
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: r.sessionId!,
      text: 'go on',
    });
    expect((await finalFor(phone, r.sessionId!, from)).summary).toBe('Picking up after the stop.');
    expect(JSON.stringify(fake.requests('MARK-STOP').at(-1)?.contents)).toContain('go on');
    // The machine's stop ends the agent and everything it started.
    await w.machine.close();
    await until(() => processesIn(w.root).length === 0, 'the agent to end with the machine', 5000);
  }, 60_000);

  it('E10 faults: a 500 from the model server ends the turn with the agent’s message; the agent killed while a card waits ends the turn, closes the card, leaves no process, and the next dispatch works', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-500', [{ status: 500, message: 'upstream exploded' }]);
    const r = await dispatch(phone, { prompt: 'MARK-500 hello' });
    const final = await finalFor(phone, r.sessionId!);
    expect(final.ok).toBe(false);
    expect(final.summary).toMatch(/500|upstream exploded|internal/i);
    fake.script('MARK-CRASH', [
      { call: 'run_shell_command', args: { command: 'echo never > crash.txt', description: 'x' } },
    ]);
    const c = await dispatch(phone, { prompt: 'MARK-CRASH go' });
    const a = await approvalOf(phone, c.sessionId!);
    const agent = processesIn(w.root);
    expect(agent.length).toBeGreaterThan(0);
    for (const pid of agent) process.kill(pid, 'SIGKILL');
    const crashed = await finalFor(phone, c.sessionId!);
    expect(crashed.ok).toBe(false);
    expect(crashed.summary).toContain('gemini stopped');
    await phone.waitFor((m) => m.type === 'approval.closed' && m.approvalId === a.approvalId, 5000);
    expect(existsSync(path.join(w.root, 'crash.txt'))).toBe(false);
    fake.script('MARK-ALIVE', [{ text: 'alive' }]);
    const next = await dispatch(phone, { prompt: 'MARK-ALIVE hi' });
    expect((await finalFor(phone, next.sessionId!)).summary).toBe('alive');
    await w.machine.close();
    await until(() => processesIn(w.root).length === 0, 'no process left', 5000);
  }, 90_000);

  it('E10: a missing gemini binary is said plainly at the check', async () => {
    const missing = path.join(home.dir, 'no-such-gemini');
    expect(await geminiProvider({ geminiPath: missing }).check()).toEqual({
      ok: false,
      message: `gemini: --gemini-path ${missing} is not an executable file`,
    });
    // Without gemini on PATH the packaged CLI (a dev dependency here) is the one found.
    const packaged = await geminiProvider({ env: { ...env(), PATH: home.dir } }).check();
    expect(packaged).toMatchObject({ ok: true, detail: expect.stringMatching(/^gemini 0\.61\.0/) });
  });

  it('E10: after a machine restart a reply resumes the conversation with session/load, also in the minute it began (the history reaches the model; the replayed history is not added to the transcript twice)', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-RESUME', [{ text: 'First answer.' }, { text: 'You asked me earlier.' }]);
    const r = await dispatch(phone, { prompt: 'MARK-RESUME remember this' });
    expect((await finalFor(phone, r.sessionId!)).summary).toBe('First answer.');
    await w.restart({ agents: agents() });
    // Gemini CLI names a conversation's file by the UTC minute it began in, and a loading process
    // records into the current minute's name first: in the same minute (this test, but for the
    // rare run that crosses one) that replaced the history until the machine set the file aside
    // (gemini-history.ts).
    const from = phone.messages.length;
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: r.sessionId!,
      text: 'what did I ask?',
    });
    expect((await finalFor(phone, r.sessionId!, from)).summary).toBe('You asked me earlier.');
    const history = JSON.stringify(fake.requests('MARK-RESUME').at(-1)?.contents);
    expect(history).toContain('First answer.');
    expect(history).toContain('what did I ask?');
    const transcript = w.machine.transcript(r.sessionId!).map((e) => e.text);
    expect(transcript.filter((t) => t === 'First answer.')).toHaveLength(1);
    expect(transcript.filter((t) => t === 'MARK-RESUME remember this')).toHaveLength(1);
    expect(transcript.join('\n')).not.toContain('Could not resume');
  }, 60_000);

  it("E2 over ACP: a command allowed for the session is allowed by the machine's own rule the next time Gemini asks (no card); the agent's allow_always is never chosen, so Gemini asks again", async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-RULE', [
      { call: 'run_shell_command', args: { command: 'touch ruled.txt', description: 'one' } },
      { call: 'run_shell_command', args: { command: 'touch ruled.txt', description: 'two' } },
      { text: 'done' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-RULE go' });
    const a = await approvalOf(phone, r.sessionId!);
    expect(a).toMatchObject({ tool: 'execute', rule: { scopes: ['session'] } });
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: a.approvalId,
      decision: 'allow',
      scope: 'session',
    });
    expect((await finalFor(phone, r.sessionId!)).summary).toBe('done');
    const cards = phone.messages.filter(
      (m) => m.type === 'approval.request' && m.sessionId === r.sessionId,
    );
    expect(cards).toHaveLength(1);
    const transcript = w.machine.transcript(r.sessionId!).map((e) => e.text);
    expect(transcript).toContain(`Allowed by rule ${a.rule!.key}.`);
    expect(existsSync(path.join(w.root, 'ruled.txt'))).toBe(true);
  }, 60_000);

  it("E4: Stop while a Gemini card waits: the card closes superseded, the turn ends interrupted by the cancel (the backstop's clock held), the command never runs", async () => {
    const w = await suite.world({ agents: heldBackstop() });
    const phone = await w.phone();
    fake.script('MARK-STOPCARD', [
      { call: 'run_shell_command', args: { command: 'touch never.txt', description: 'x' } },
      { text: 'never' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-STOPCARD go' });
    const a = await approvalOf(phone, r.sessionId!);
    phone.send({ type: 'session.interrupt', requestId: rid(), sessionId: r.sessionId! });
    const closed = await phone.waitFor(
      (m) => m.type === 'approval.closed' && m.approvalId === a.approvalId,
    );
    expect(closed).toMatchObject({ resolution: 'superseded' });
    expect(await finalFor(phone, r.sessionId!)).toMatchObject({ ok: false, reason: 'interrupted' });
    expect(existsSync(path.join(w.root, 'never.txt'))).toBe(false);
  }, 60_000);

  it('E10 faults: the agent killed while its command runs ends the turn and no process of it is left (its processes carry the run mark, so a command orphaned in a group of its own is found too)', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-ORPHAN', [
      {
        call: 'run_shell_command',
        args: { command: 'node -e "setTimeout(()=>{},30002)"', description: 'wait' },
      },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-ORPHAN wait' });
    const a = await approvalOf(phone, r.sessionId!);
    respond(phone, a.approvalId, 'allow');
    await until(() => running('30002').length > 0, 'the command to run', 20_000);
    const command = new Set(running('30002'));
    for (const pid of processesIn(w.root)) if (!command.has(pid)) process.kill(pid, 'SIGKILL');
    const final = await finalFor(phone, r.sessionId!);
    expect(final.ok).toBe(false);
    expect(final.summary).toContain('gemini stopped');
    await until(() => running('30002').length === 0, 'the orphaned command to end', 5000);
  }, 60_000);

  it('E10 faults: after a 500 the Gemini process stays idle, holding the conversation; after IDLE_LIMIT_MS without a turn (manual clock) it is ended and nothing of it is left', async () => {
    const work = makeTmpDir('gemini-idle-');
    const found = resolveGemini(undefined, '');
    if (!found.ok) throw new Error(found.message);
    const clock = makeManualTimers();
    const s = openAcpSession(
      { spec: found.spec, env: env() },
      { cwd: work.dir, access: 'standard', timers: clock },
    );
    try {
      fake.script('MARK-IDLE', [{ status: 500, message: 'upstream exploded' }]);
      const said: string[] = [];
      const ctx: AgentContext = {
        cwd: work.dir,
        signal: new AbortController().signal,
        host: () => {
          throw new Error('Gemini runs its own tools');
        },
        approve: () => Promise.resolve({ allowed: false, why: 'denied' }),
        ask: () => Promise.resolve({ ok: false, why: 'denied' }),
        toolStarted: () => {},
        toolFinished: () => {},
        assistant: (text) => said.push(text),
        sleep: () => Promise.resolve(),
        usage: () => {},
        model: () => {},
        nativeSession: () => {},
      };
      expect((await s.runTurn('MARK-IDLE hello', ctx)).ok).toBe(false);
      const agent = processesIn(work.dir);
      expect(agent.length).toBeGreaterThan(0);
      clock.advance(IDLE_LIMIT_MS - 1);
      expect(processesIn(work.dir)).toEqual(agent);
      clock.advance(1);
      await until(() => processesIn(work.dir).length === 0, 'the idle agent to end', 5000);
    } finally {
      await s.close();
      work.cleanup();
    }
  }, 60_000);
});
