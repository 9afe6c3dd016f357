import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../../protocol/index.ts';
import { makeTmpDir, type TmpDir } from '../../../testkit/tmp.ts';
import { isGone, liveInGroup } from '../../../testkit/process-group.ts';
import { until } from '../../../testkit/until.ts';
import {
  claudeTestEnv,
  startFakeAnthropic,
  type FakeAnthropic,
} from '../../test-support/fake-anthropic.ts';
import { dispatch, is, relaySuite, rid } from '../../test-support/relay-suite.ts';
import type { TestPhone } from '../../test-support/test-phone.ts';
import { makeManualTimers } from '../../../testkit/manual-clock.ts';
import { claudeProvider } from './provider.ts';
import { liveProcesses } from '../../../testkit/process-group.ts';

// E10 with the REAL Claude Code binary (the SDK's CLI in agents/node_modules) against a scripted Anthropic
// Messages server, through a real relay and the test phone: approvals with Claude's own tool
// names, diffs, deny, allow with changes (E3), Stop (E4), questions, resume after a restart, and
// the model server's faults. One fake server for the file; each case scripts its own marker.

const suite = relaySuite();
let fake: FakeAnthropic;
let home: TmpDir;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  home = makeTmpDir('claude-home-');
  mkdirSync(path.join(home.dir, '.claude'));
});
afterAll(async () => {
  await fake.close();
  home.cleanup();
});

/** The isolated environment of every test run of the CLI (never a developer's own login). */
const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  ...claudeTestEnv(home.dir, fake.url),
  ...extra,
});
const agents = (extra?: Record<string, string>) => [
  claudeProvider({ env: env(extra), settingSources: [] }),
];
// E4: the Stop backstop's clock held: a turn that ends stopped was ended by the interrupt itself.
// How fast is measured by `npm run bench:agents` (stop → not running), not asserted here.
const heldBackstop = () => [
  claudeProvider({ env: env(), settingSources: [], timers: makeManualTimers() }),
];

const respond = (
  phone: TestPhone,
  approvalId: string,
  decision: 'allow' | 'deny',
  edited?: string,
) =>
  phone.send({
    type: 'approval.respond',
    requestId: rid(),
    approvalId,
    decision,
    ...(edited !== undefined ? { edited } : {}),
  });

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
const lastToolResult = (marker: string): string =>
  JSON.stringify(fake.requests(marker).at(-1)?.messages.at(-1)?.content ?? '');

/** Processes whose folder is `dir` (the CLI and the tools it started there). */
const processesIn = (dir: string) => liveProcesses({ cwd: dir });

describe('E10: Claude Code behind the phone', () => {
  it("E10: a Bash call becomes an approval with Claude's tool name and command; allow runs it; turn.final has Claude's text; usage and model reach the session; a reply after a machine restart resumes the conversation; one Claude lost is said and started anew", async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    const status = await phone.waitFor(is('machine.status'));
    expect(status.capabilities?.agents).toEqual(['claude']);
    fake.script('MARK-BASH', [
      { tool: 'Bash', input: { command: 'echo hi > out.txt', description: 'Write hi to a file' } },
      { text: 'Wrote out.txt for you.', usage: { input: 200, output: 40 } },
      { text: 'You asked me to write out.txt earlier.' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-BASH write a file' });
    expect(r.ok).toBe(true);
    const a = await approvalOf(phone, r.sessionId!);
    expect(a.tool).toBe('Bash');
    expect(a.detail).toContain('echo hi > out.txt');
    expect(a.detail).toContain('Write hi to a file');
    expect(a.editable).toEqual({ label: 'Command', value: 'echo hi > out.txt' });
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
      agent: 'claude',
      model: expect.any(String),
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
    const transcript = w.machine.transcript(r.sessionId!).map((e) => e.text);
    expect(transcript).toContain('Bash: echo hi > out.txt');
    expect(transcript).toContain('Wrote out.txt for you.');
    // A restart: the reply resumes Claude's own session (the history reaches the model).
    await w.restart({ agents: agents() });
    const from = phone.messages.length;
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: r.sessionId!,
      text: 'what did you do?',
    });
    const second = await finalFor(phone, r.sessionId!, from);
    expect(second).toMatchObject({ ok: true, summary: 'You asked me to write out.txt earlier.' });
    const history = JSON.stringify(fake.requests('MARK-BASH').at(-1)?.messages);
    expect(history).toContain('Wrote out.txt for you.');
    expect(history).toContain('what did you do?');
    // Claude lost the conversation (its session files are gone): the reply says so and starts a
    // new one.
    await w.restart({ agents: agents() });
    rmSync(path.join(home.dir, '.claude', 'projects'), { recursive: true, force: true });
    fake.script('MARK-FRESH', [{ text: 'Starting over.' }]);
    const mark = phone.messages.length;
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: r.sessionId!,
      text: 'MARK-FRESH and now?',
    });
    expect((await finalFor(phone, r.sessionId!, mark)).summary).toBe('Starting over.');
    expect(w.machine.transcript(r.sessionId!).map((e) => e.text)).toContainEqual(
      expect.stringMatching(/^Could not resume the earlier conversation .*started a new one/),
    );
    // Four starts of the CLI (1.4–2.7 s each on an idle machine) and their turns.
  }, 60_000);

  it('E10: an Edit shows a unified diff against the file; a deny leaves the file as it was and Claude hears it was denied from the phone', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    const file = path.join(w.root, 'notes.md');
    writeFileSync(file, 'one\ntwo\nthree\n');
    fake.script('MARK-EDIT', [
      { tool: 'Read', input: { file_path: file } },
      { tool: 'Edit', input: { file_path: file, old_string: 'two', new_string: 'TWO' } },
      { text: 'The edit was denied, so I left it.' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-EDIT shout the second line' });
    const a = await approvalOf(phone, r.sessionId!);
    expect(a.tool).toBe('Edit');
    expect(a.editable).toBeUndefined();
    expect(a.detail).toContain('--- a/notes.md');
    expect(a.detail).toContain('+++ b/notes.md');
    expect(a.detail).toContain('-two');
    expect(a.detail).toContain('+TWO');
    respond(phone, a.approvalId, 'deny');
    const final = await finalFor(phone, r.sessionId!);
    expect(final.summary).toBe('The edit was denied, so I left it.');
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n');
    expect(lastToolResult('MARK-EDIT')).toContain('denied this from their phone');
  });

  it("E11: a deny with the owner's words reaches Claude as that tool_use's error result carrying them; the turn goes on to Claude's next call and its reply", async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-WORDS', [
      { tool: 'Bash', input: { command: 'rm -rf build', description: 'Clean the build' } },
      { tool: 'Bash', input: { command: 'echo kept > kept.txt', description: 'Note it' } },
      { text: 'Left build alone, as you said.' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-WORDS tidy up' });
    const a = await approvalOf(phone, r.sessionId!);
    expect(a.detail).toContain('rm -rf build');
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: a.approvalId,
      decision: 'deny',
      message: 'keep build, the release needs it',
    });
    // Not interrupted: Claude asks for its next call after hearing the deny.
    const b = await approvalOf(phone, r.sessionId!, phone.messages.indexOf(a) + 1);
    expect(b.detail).toContain('echo kept > kept.txt');
    respond(phone, b.approvalId, 'allow');
    const final = await finalFor(phone, r.sessionId!);
    expect(final).toMatchObject({ ok: true, summary: 'Left build alone, as you said.' });
    expect(readFileSync(path.join(w.root, 'kept.txt'), 'utf8')).toBe('kept\n');
    // The model request after the deny: the tool_result for that tool_use, an error, in her words.
    const afterDeny = fake.requests('MARK-WORDS')[1]!.messages;
    const call = (afterDeny.at(-2)!.content as Array<{ type: string; id?: string }>).find(
      (c) => c.type === 'tool_use',
    )!;
    const result = (
      afterDeny.at(-1)!.content as Array<{
        type: string;
        tool_use_id?: string;
        is_error?: boolean;
        content?: unknown;
      }>
    ).find((c) => c.type === 'tool_result')!;
    expect(result.tool_use_id).toBe(call.id);
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain(
      'The user denied this from their phone. They said: keep build, the release needs it',
    );
  });

  it("E3 + E2: allow with changes runs the edited command instead of Claude's; a Bash call allowed for the session is allowed by the machine's rule the next time, without a card", async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-CHANGED', [
      { tool: 'Bash', input: { command: 'echo asked > asked.txt', description: 'x' } },
      { tool: 'Bash', input: { command: 'touch ruled.txt', description: 'touch it' } },
      { tool: 'Bash', input: { command: 'touch ruled.txt', description: 'touch it again' } },
      { text: 'done' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-CHANGED go' });
    const a = await approvalOf(phone, r.sessionId!);
    respond(phone, a.approvalId, 'allow', 'echo edited > edited.txt');
    const b = await approvalOf(phone, r.sessionId!, phone.messages.indexOf(a) + 1);
    expect(b).toMatchObject({ tool: 'Bash', rule: { scopes: ['session'] } });
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: b.approvalId,
      decision: 'allow',
      scope: 'session',
    });
    expect((await finalFor(phone, r.sessionId!)).summary).toBe('done');
    expect(existsSync(path.join(w.root, 'edited.txt'))).toBe(true);
    expect(existsSync(path.join(w.root, 'asked.txt'))).toBe(false);
    // The second `touch ruled.txt` was allowed by the rule: no third card, and the transcript says so.
    const cards = phone.messages.filter(
      (m) => m.type === 'approval.request' && m.sessionId === r.sessionId,
    );
    expect(cards).toHaveLength(2);
    const transcript = w.machine.transcript(r.sessionId!).map((e) => e.text);
    expect(transcript).toContain(`Allowed by rule ${b.rule!.key}.`);
    expect(lastToolResult('MARK-CHANGED')).not.toContain('denied');
  });

  it('E10: AskUserQuestion becomes a question card; the chosen label reaches Claude as its answer', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-ASK', [
      {
        tool: 'AskUserQuestion',
        input: {
          questions: [
            {
              question: 'Which colour?',
              header: 'Colour',
              multiSelect: false,
              options: [
                { label: 'Red', description: 'warm' },
                { label: 'Blue', description: 'cool' },
              ],
            },
          ],
        },
      },
      { text: 'Blue it is.' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-ASK pick' });
    const q = await phone.waitFor(is('question.request'), 30_000);
    expect(q.items[0]).toMatchObject({ prompt: 'Colour: Which colour?', multiSelect: false });
    const blue = q.items[0]!.options.find((o) => o.label === 'Blue')!;
    phone.send({
      type: 'question.respond',
      requestId: rid(),
      questionId: q.questionId,
      answers: [{ itemId: q.items[0]!.id, optionIds: [blue.id] }],
    });
    const final = await finalFor(phone, r.sessionId!);
    expect(final.summary).toBe('Blue it is.');
    expect(lastToolResult('MARK-ASK')).toContain('Blue');
  });

  it("E4: Stop during a long command ends the turn by the interrupt (the backstop's clock held): turn.final says interrupted, the session is not running, and the command's process is gone; a reply continues the conversation", async () => {
    const w = await suite.world({ agents: heldBackstop() });
    const phone = await w.phone();
    fake.script('MARK-STOP', [
      {
        tool: 'Bash',
        input: { command: 'node -e "setTimeout(()=>{},30000)"', description: 'wait' },
      },
      { text: 'Picking up after the stop.' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-STOP wait' });
    const a = await approvalOf(phone, r.sessionId!);
    respond(phone, a.approvalId, 'allow');
    const isWaiter = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('setTimeout(()=>{},30000)');
      } catch {
        return false;
      }
    };
    await until(() => processesIn(w.root).some(isWaiter), 'the command to run', 20_000);
    phone.send({ type: 'session.interrupt', requestId: rid(), sessionId: r.sessionId! });
    const final = await finalFor(phone, r.sessionId!);
    expect(final).toMatchObject({ ok: false, reason: 'interrupted' });
    await until(() => processesIn(w.root).length === 0, 'every process of the turn to end', 5000);
    expect(w.machine.sessions().find((s) => s.sessionId === r.sessionId)?.state).toBe('idle');
    // A reply after the stop continues the same conversation.
    const from = phone.messages.length;
    phone.send({
      type: 'session.message',
      requestId: rid(),
      sessionId: r.sessionId!,
      text: 'go on',
    });
    expect((await finalFor(phone, r.sessionId!, from)).summary).toBe('Picking up after the stop.');
    expect(JSON.stringify(fake.requests('MARK-STOP').at(-1)?.messages)).toContain('go on');
  });

  it("E4: Stop while a Claude card waits: the card closes superseded, the turn ends interrupted by the interrupt (the backstop's clock held), the command never runs, no process is left", async () => {
    const w = await suite.world({ agents: heldBackstop() });
    const phone = await w.phone();
    fake.script('MARK-STOPCARD', [
      { tool: 'Bash', input: { command: 'touch never.txt', description: 'x' } },
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
    await until(() => processesIn(w.root).length === 0, 'no process left', 5000);
    expect(existsSync(path.join(w.root, 'never.txt'))).toBe(false);
  });

  it('E10 faults: a 401 or a 429 from the model server ends the turn with the agent’s own message and leaves no process', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-401', [{ status: 401, message: 'invalid x-api-key' }]);
    const r = await dispatch(phone, { prompt: 'MARK-401 hello' });
    const final = await finalFor(phone, r.sessionId!);
    expect(final.ok).toBe(false);
    expect(final.summary).toMatch(/invalid api key/i);
    await until(() => processesIn(w.root).length === 0, 'the CLI to end', 5000);
    // A 429 the same way (Claude's own retries are off in tests: CLAUDE_CODE_MAX_RETRIES=0).
    fake.script('MARK-429', [{ status: 429, message: 'slow down' }]);
    const limited = await dispatch(phone, { prompt: 'MARK-429 hello' });
    const f429 = await finalFor(phone, limited.sessionId!);
    expect(f429.ok).toBe(false);
    expect(f429.summary).toMatch(/429|rate|slow down/i);
    await until(() => processesIn(w.root).length === 0, 'the CLI to end', 5000);
  });

  it('E10 faults: a 500 ends the turn with the agent’s message; the CLI killed while a card waits ends the turn, closes the card, leaves no process, and the next dispatch works', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-500', [{ status: 500, message: 'upstream exploded' }]);
    const r = await dispatch(phone, { prompt: 'MARK-500 hello' });
    const final = await finalFor(phone, r.sessionId!);
    expect(final.ok).toBe(false);
    expect(final.summary).toMatch(/500|upstream exploded|api error/i);
    fake.script('MARK-CRASH', [
      { tool: 'Bash', input: { command: 'echo never > crash.txt', description: 'x' } },
    ]);
    const c = await dispatch(phone, { prompt: 'MARK-CRASH go' });
    const a = await approvalOf(phone, c.sessionId!);
    const [cli] = processesIn(w.root);
    expect(cli).toBeDefined();
    process.kill(cli!, 'SIGKILL');
    const crashed = await finalFor(phone, c.sessionId!);
    expect(crashed.ok).toBe(false);
    expect(crashed.summary).toContain('Claude Code stopped');
    await phone.waitFor((m) => m.type === 'approval.closed' && m.approvalId === a.approvalId, 5000);
    await until(() => processesIn(w.root).length === 0, 'no process left', 5000);
    expect(existsSync(path.join(w.root, 'crash.txt'))).toBe(false);
    fake.script('MARK-ALIVE', [{ text: 'alive' }]);
    const next = await dispatch(phone, { prompt: 'MARK-ALIVE hi' });
    expect((await finalFor(phone, next.sessionId!)).summary).toBe('alive');
  });

  it("E10 faults: of four concurrent sessions, one whose CLI dies while its command runs ends saying Claude Code stopped, with its command's processes and groups gone; one whose CLI dies while its card waits has the card closed; one whose model answers 500 ends with the agent's message; the fourth keeps its card and runs on to its final text", async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    const folder = (name: string) => {
      mkdirSync(path.join(w.root, name));
      return path.join(w.root, name);
    };
    const [crashDir, cardDir, failDir, liveDir] = ['crash', 'card', 'fail', 'live'].map(folder) as [
      string,
      string,
      string,
      string,
    ];
    fake.script('MARK-CO-CRASH', [
      {
        tool: 'Bash',
        input: {
          command: `node -e "const c = require('child_process').spawn('sleep', ['60'], {stdio: 'ignore'}); require('fs').writeFileSync('pids', process.pid + ' ' + c.pid); setTimeout(() => {}, 60000)"`,
          description: 'wait',
        },
      },
      { text: 'never' },
    ]);
    fake.script('MARK-CO-500', [{ status: 500, message: 'upstream exploded' }]);
    fake.script('MARK-CO-CARD', [
      { tool: 'Bash', input: { command: 'touch never.txt', description: 'x' } },
      { text: 'never' },
    ]);
    fake.script('MARK-CO-LIVE', [
      { tool: 'Bash', input: { command: 'echo live > live.txt', description: 'x' } },
      { text: 'The live session finished.' },
    ]);
    const live = await dispatch(phone, { prompt: 'MARK-CO-LIVE go', cwd: liveDir });
    const liveCard = await approvalOf(phone, live.sessionId!);
    const crash = await dispatch(phone, { prompt: 'MARK-CO-CRASH go', cwd: crashDir });
    const failing = await dispatch(phone, { prompt: 'MARK-CO-500 go', cwd: failDir });
    const carded = await dispatch(phone, { prompt: 'MARK-CO-CARD go', cwd: cardDir });
    const waiting = await approvalOf(phone, carded.sessionId!);
    respond(phone, (await approvalOf(phone, crash.sessionId!)).approvalId, 'allow');
    const pidsFile = path.join(crashDir, 'pids');
    await until(
      () => existsSync(pidsFile) && readFileSync(pidsFile, 'utf8').includes(' '),
      'the command to run',
      20_000,
    );
    const pids = readFileSync(pidsFile, 'utf8').split(' ').map(Number);
    const cmdline = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        return '';
      }
    };
    const cli = processesIn(crashDir).find((p) => !pids.includes(p) && /claude/.test(cmdline(p)));
    expect(cli).toBeDefined();
    const groups = [cli!, ...pids].map((p) =>
      Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]),
    );
    // Only the CLI dies: what it started is left to the machine to find.
    process.kill(cli!, 'SIGKILL');
    const crashed = await finalFor(phone, crash.sessionId!);
    expect(crashed.ok).toBe(false);
    expect(crashed.summary).toMatch(/^Claude Code stopped/);
    expect(pids.every(isGone)).toBe(true);
    for (const g of groups) expect(liveInGroup(g)).toEqual([]);
    // The CLI whose card waits dies: the turn ends, the card closes, the command never runs.
    const [cardCli] = processesIn(cardDir);
    expect(cardCli).toBeDefined();
    process.kill(cardCli!, 'SIGKILL');
    expect((await finalFor(phone, carded.sessionId!)).summary).toMatch(/^Claude Code stopped/);
    expect(
      await phone.waitFor(
        (m) => m.type === 'approval.closed' && m.approvalId === waiting.approvalId,
        5000,
      ),
    ).toMatchObject({ resolution: 'superseded' });
    expect(existsSync(path.join(cardDir, 'never.txt'))).toBe(false);
    const failed = await finalFor(phone, failing.sessionId!);
    expect(failed.ok).toBe(false);
    expect(failed.summary).toMatch(/500|upstream exploded|api error/i);
    await until(() => processesIn(failDir).length === 0, 'the failed CLI to end', 5000);
    // Every card the failed turns opened is closed; the live one still waits, its CLI alive.
    const opened = (id: string) =>
      phone.messages.filter((m) => m.type === 'approval.request' && m.sessionId === id);
    for (const c of [
      ...opened(crash.sessionId!),
      ...opened(carded.sessionId!),
      ...opened(failing.sessionId!),
    ])
      expect(
        phone.messages.some(
          (m) =>
            m.type === 'approval.closed' &&
            m.approvalId === (c as { approvalId: string }).approvalId,
        ),
      ).toBe(true);
    expect(processesIn(liveDir).length).toBeGreaterThan(0);
    respond(phone, liveCard.approvalId, 'allow');
    expect(await finalFor(phone, live.sessionId!)).toMatchObject({
      ok: true,
      summary: 'The live session finished.',
    });
    expect(readFileSync(path.join(liveDir, 'live.txt'), 'utf8')).toBe('live\n');
    for (const d of [crashDir, cardDir, failDir, liveDir])
      await until(() => processesIn(d).length === 0, `nothing left in ${d}`, 5000);
  }, 60_000);

  it('E10 faults: a model server that never answers ends the turn when the API times out, with no process left', async () => {
    const w = await suite.world({ agents: agents({ API_TIMEOUT_MS: '2000' }) });
    const phone = await w.phone();
    fake.script('MARK-HANG', [{ hang: true }]);
    const r = await dispatch(phone, { prompt: 'MARK-HANG hello' });
    const final = await finalFor(phone, r.sessionId!);
    expect(final.ok).toBe(false);
    expect(final.summary).toMatch(/tim(ed|e) ?out|timeout/i);
    await until(() => processesIn(w.root).length === 0, 'the CLI to end', 5000);
    // Stopping the machine mid-turn ends its agent's processes too.
    fake.script('MARK-SHUTDOWN', [{ hang: true }]);
    await dispatch(phone, { prompt: 'MARK-SHUTDOWN hello' });
    await until(() => fake.requests('MARK-SHUTDOWN').length > 0, 'the model request', 20_000);
    expect(processesIn(w.root).length).toBeGreaterThan(0);
    await w.machine.close();
    await until(() => processesIn(w.root).length === 0, 'the CLI to end with the machine', 5000);
  });

  it('E10: a missing binary is said plainly at the check', async () => {
    const c = await claudeProvider({ claudePath: path.join(home.dir, 'no-such-claude') }).check();
    expect(c).toEqual({
      ok: false,
      message: `claude: --claude-path ${path.join(home.dir, 'no-such-claude')} is not an executable file`,
    });
    const none = await claudeProvider({ env: { PATH: home.dir } }).check();
    // E10 packaging: without claude on PATH, the CLI in agents/node_modules (`npm test` installs
    // it) is the one found.
    expect(none).toEqual({
      ok: true,
      detail: expect.stringMatching(/\(.*\/agents\/node_modules\/.*, from agents\/ /),
    });
  });
});
