import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTmpDir } from '../../../testkit/tmp.ts';
import { mergeDeclared, parseAgentsFile, readAgentsFile } from './declare.ts';
import { declaredAcpProvider } from './provider.ts';

// E10: ACP agents the user declares in <state-dir>/agents.json; a bad file is refused at start
// with bad-agents-file and a message naming the agent and the field.

describe('E10: declared ACP agents', () => {
  it('E10: agents.json declares agents with command, args and env; none is no declaration', () => {
    const tmp = makeTmpDir('agents-');
    try {
      expect(readAgentsFile(tmp.dir)).toEqual({ ok: true, specs: [] });
      mkdirSync(tmp.dir, { recursive: true });
      writeFileSync(
        path.join(tmp.dir, 'agents.json'),
        JSON.stringify({
          agents: { 'claude-acp': { command: 'claude-agent-acp', args: ['--x'], env: { A: '1' } } },
        }),
      );
      expect(readAgentsFile(tmp.dir)).toEqual({
        ok: true,
        specs: [
          { name: 'claude-acp', command: 'claude-agent-acp', args: ['--x'], env: { A: '1' } },
        ],
      });
    } finally {
      tmp.cleanup();
    }
  });

  it('E10: a bad agents.json is refused with bad-agents-file saying what is wrong', () => {
    const f = '/s/agents.json';
    expect(parseAgentsFile('{', f)).toMatchObject({ ok: false, code: 'bad-agents-file' });
    expect(parseAgentsFile('{"agents":[]}', f)).toMatchObject({
      ok: false,
      code: 'bad-agents-file',
    });
    expect(parseAgentsFile('{"agents":{"x":{"args":[]}}}', f)).toEqual({
      ok: false,
      code: 'bad-agents-file',
      message: '/s/agents.json: agent x: "command" must be a non-empty string',
    });
    expect(parseAgentsFile('{"agents":{"x":{"command":"a","env":{"A":1}}}}', f)).toEqual({
      ok: false,
      code: 'bad-agents-file',
      message: '/s/agents.json: agent x: "env" must map names to strings',
    });
    expect(parseAgentsFile('{"agents":{"Bad Name":{"command":"a"}}}', f)).toMatchObject({
      ok: false,
      code: 'bad-agents-file',
    });
    expect(parseAgentsFile('{"agents":{"codex":{"command":"a"}}}', f)).toMatchObject({
      ok: false,
      message: expect.stringContaining('codex is built in'),
    });
    // The same name on the command line and in the file.
    const file = parseAgentsFile('{"agents":{"x":{"command":"a"}}}', f);
    expect(mergeDeclared([{ name: 'x', command: 'b', args: [] }], file)).toMatchObject({
      ok: false,
      code: 'bad-acp-agent',
    });
  });

  it('E10: a declared agent whose command is missing is said plainly at the check', async () => {
    const c = await declaredAcpProvider(
      { name: 'other', command: 'no-such-acp-agent', args: [] },
      { env: { PATH: '/nonexistent' } },
    ).check();
    expect(c).toEqual({
      ok: false,
      message:
        'other: no-such-acp-agent is not on PATH — fix its declaration (--acp-agent or agents.json)',
    });
  });
});
