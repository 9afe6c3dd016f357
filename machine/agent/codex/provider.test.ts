import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../../protocol/index.ts';
import { CODEX_TEST_ARGS, makeCodexHome, type CodexHome } from '../../test-support/codex-home.ts';
import { startFakeResponses, type FakeResponses } from '../../test-support/fake-responses.ts';
import { is, relaySuite, rid } from '../../test-support/relay-suite.ts';
import { mockProvider } from '../mock/provider.ts';
import { codexApprovalAsk, codexProvider } from './provider.ts';

// E10 wiring: the real Codex (codex app-server 0.171.0, fake Responses server) behind the
// machine's agent seam, through a real relay and the test phone — the agent chosen by the
// dispatch, Codex's own tool name on the card, never editable, the command runs on allow.

const suite = relaySuite();
let fake: FakeResponses;
let home: CodexHome | undefined;

beforeAll(async () => {
  fake = await startFakeResponses();
});
afterAll(() => fake.close());
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

describe('E10: Codex behind the phone', () => {
  it("E10: a dispatch naming codex runs Codex: its escalated command is a card with Codex's tool name, not editable; allow runs it; turn.final has Codex's text; model reaches the session", async () => {
    const codexHome = makeCodexHome(fake);
    home = codexHome;
    const codex = codexProvider({ env: codexHome.env, extraArgs: CODEX_TEST_ARGS });
    expect(await codex.check()).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^codex /),
    });
    const w = await suite.world({ agents: [mockProvider, codex] });
    const phone = await w.phone();
    expect((await phone.waitFor(is('machine.status'))).capabilities?.agents).toEqual([
      'mock',
      'codex',
    ]);
    let n = 0;
    fake.respond = () =>
      n++ === 0
        ? {
            kind: 'call',
            name: 'exec_command',
            args: {
              cmd: 'touch from-codex.txt',
              sandbox_permissions: 'require_escalated',
              justification: 'the test asks',
            },
          }
        : { kind: 'text', text: 'Codex made the file.' };
    const requestId = rid();
    phone.send({
      type: 'dispatch.request',
      requestId,
      prompt: 'make a file',
      worktree: false,
      agent: 'codex',
    });
    const r = await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'dispatch.result' }> =>
        m.type === 'dispatch.result' && m.requestId === requestId,
    );
    expect(r.ok).toBe(true);
    const a = await phone.waitFor(is('approval.request'), 30_000);
    expect(a).toMatchObject({ sessionId: r.sessionId, tool: 'exec_command' });
    expect(a.editable).toBeUndefined();
    expect(a.detail).toContain('touch from-codex.txt');
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: a.approvalId,
      decision: 'allow',
    });
    const final = await phone.waitFor(
      (m): m is Extract<MachineMessage, { type: 'turn.final' }> =>
        m.type === 'turn.final' && m.sessionId === r.sessionId,
      30_000,
    );
    expect(final).toMatchObject({ ok: true, summary: 'Codex made the file.' });
    expect(existsSync(path.join(w.root, 'from-codex.txt'))).toBe(true);
    expect(w.machine.sessions().find((s) => s.sessionId === r.sessionId)).toMatchObject({
      agent: 'codex',
      model: 'gpt-5.5',
    });
  });

  it("E10: Codex's requests as the machine's approval kinds: a command is never editable; one file is a write; several files are never remembered", () => {
    expect(
      codexApprovalAsk({
        tool: 'exec_command',
        title: 'Run a command',
        detail: 'ls',
        command: 'ls',
        cwd: '/w',
      }),
    ).toMatchObject({ tool: 'run', agentTool: 'exec_command', editable: false });
    expect(
      codexApprovalAsk({ tool: 'apply_patch', title: 'Edit a', detail: 'd', paths: ['/w/a'] }),
    ).toMatchObject({ tool: 'write', path: '/w/a' });
    expect(
      codexApprovalAsk({
        tool: 'apply_patch',
        title: 'Edit',
        detail: 'd',
        paths: ['/w/a', '/w/b'],
      }),
    ).toMatchObject({ tool: 'other', agentTool: 'apply_patch' });
  });
});
