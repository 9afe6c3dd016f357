import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../../protocol/index.ts';
import { makeTmpDir, type TmpDir } from '../../../testkit/tmp.ts';
import {
  claudeTestEnv,
  startFakeAnthropic,
  type FakeAnthropic,
} from '../../test-support/fake-anthropic.ts';
import { dispatch, is, relaySuite, rid } from '../../test-support/relay-suite.ts';
import type { TestPhone } from '../../test-support/test-phone.ts';
import { parseAcpFlag } from './declare.ts';
import { declaredAcpProvider } from './provider.ts';
import { CLAUDE_BINARY } from '../claude/binary.ts';
import { agentsNodeModules } from '../find-binary.ts';

// E10 "any ACP agent": an agent the code does not name, declared on the command line only —
// Claude's ACP adapter (`claude-agent-acp`, the real package and the real Claude CLI it runs)
// against the scripted Anthropic server. It starts in mode `auto` (Claude decides itself): the
// adapter switches it to `default` so that every Bash call is asked on the phone.

const suite = relaySuite();
let fake: FakeAnthropic;
let home: TmpDir;

// Both from agents/ (E10 packaging: `npm run agents:install`, which `npm test` runs first).
const NODE_MODULES = agentsNodeModules() ?? path.resolve('agents/node_modules');
const BIN = path.join(NODE_MODULES, '.bin', 'claude-agent-acp');
const CLAUDE =
  CLAUDE_BINARY.packaged(NODE_MODULES)?.command ??
  path.join(NODE_MODULES, '@anthropic-ai/claude-agent-sdk-linux-x64/claude');

beforeAll(async () => {
  fake = await startFakeAnthropic();
  home = makeTmpDir('claude-acp-home-');
  mkdirSync(path.join(home.dir, '.claude'));
});
afterAll(async () => {
  await fake.close();
  home.cleanup();
});

function agents() {
  const d = parseAcpFlag(`claude-acp=${BIN}`);
  if (!d.ok) throw new Error(d.message);
  return [
    declaredAcpProvider(
      { ...d.spec, env: { CLAUDE_CODE_EXECUTABLE: CLAUDE } },
      { env: { PATH: process.env.PATH ?? '', ...claudeTestEnv(home.dir, fake.url) } },
    ),
  ];
}

const approvalOf = (phone: TestPhone, sessionId: string) =>
  phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'approval.request' }> =>
      m.type === 'approval.request' && m.sessionId === sessionId,
    30_000,
  );
const finalFor = (phone: TestPhone, sessionId: string) =>
  phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'turn.final' }> =>
      m.type === 'turn.final' && m.sessionId === sessionId,
    30_000,
  );
const respond = (phone: TestPhone, approvalId: string, decision: 'allow' | 'deny') =>
  phone.send({ type: 'approval.respond', requestId: rid(), approvalId, decision });

describe('E10: an ACP agent declared by command line only (claude-agent-acp)', () => {
  it('E10: declared with --acp-agent it is offered; its Bash call is asked (mode switched from auto to default); allow runs it, deny does not and Claude hears it', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    expect((await phone.waitFor(is('machine.status'))).capabilities?.agents).toEqual([
      'claude-acp',
    ]);
    fake.script('MARK-ACP-ALLOW', [
      { tool: 'Bash', input: { command: 'echo via-acp > acp.txt', description: 'Write acp.txt' } },
      { text: 'Wrote acp.txt over ACP.' },
    ]);
    const r = await dispatch(phone, { prompt: 'MARK-ACP-ALLOW write' });
    const a = await approvalOf(phone, r.sessionId!);
    expect(a.tool).toBe('execute');
    expect(a.detail).toContain('echo via-acp > acp.txt');
    expect(a.editable).toBeUndefined();
    respond(phone, a.approvalId, 'allow');
    expect(await finalFor(phone, r.sessionId!)).toMatchObject({
      ok: true,
      summary: 'Wrote acp.txt over ACP.',
    });
    expect(readFileSync(path.join(w.root, 'acp.txt'), 'utf8')).toBe('via-acp\n');
    // Usage from the prompt result's `usage`, the cost from `usage_update` (USD).
    const update = await phone.waitFor(
      (m) =>
        m.type === 'session.update' &&
        m.session.sessionId === r.sessionId &&
        m.session.usage !== undefined &&
        m.session.state === 'done',
    );
    expect(update.type === 'session.update' && update.session).toMatchObject({
      agent: 'claude-acp',
      usage: {
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
        costUsd: expect.any(Number),
      },
    });

    fake.script('MARK-ACP-DENY', [
      { tool: 'Bash', input: { command: 'echo no > denied.txt', description: 'Write denied' } },
      { text: 'It was refused, so I stopped.' },
    ]);
    const d = await dispatch(phone, { prompt: 'MARK-ACP-DENY write' });
    const b = await approvalOf(phone, d.sessionId!);
    respond(phone, b.approvalId, 'deny');
    expect((await finalFor(phone, d.sessionId!)).summary).toBe('It was refused, so I stopped.');
    expect(existsSync(path.join(w.root, 'denied.txt'))).toBe(false);
    // The turn after the deny carries it back as Bash's error result.
    const told = JSON.stringify(fake.requests('MARK-ACP-DENY')[1]?.messages.at(-1)?.content);
    expect(told).toContain('tool_result');
    expect(told).toContain('"is_error":true');
  }, 90_000);

  it('E10: a question over ACP (elicitation/create form, advertised by the client) becomes a question card; the chosen option reaches Claude', async () => {
    const w = await suite.world({ agents: agents() });
    const phone = await w.phone();
    fake.script('MARK-ACP-ASK', [
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
    const r = await dispatch(phone, { prompt: 'MARK-ACP-ASK pick' });
    const q = await phone.waitFor(is('question.request'), 30_000);
    expect(q.items[0]!.prompt).toContain('Which colour?');
    const blue = q.items[0]!.options.find((o) => o.label.startsWith('Blue'))!;
    expect(blue).toBeDefined();
    phone.send({
      type: 'question.respond',
      requestId: rid(),
      questionId: q.questionId,
      answers: [{ itemId: q.items[0]!.id, optionIds: [blue.id] }],
    });
    expect((await finalFor(phone, r.sessionId!)).summary).toBe('Blue it is.');
    // The turn after the answer carries it back as AskUserQuestion's tool result.
    const answered = JSON.stringify(fake.requests('MARK-ACP-ASK')[1]?.messages.at(-1));
    expect(answered).toContain('tool_result');
    expect(answered).toContain('Blue');
  }, 60_000);
});
