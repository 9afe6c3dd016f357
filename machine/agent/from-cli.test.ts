import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentsFromCli } from './from-cli.ts';

// E10: each --agent is checked at start; a missing one is said plainly and left out, and the
// machine runs with the rest (the first that passed is the default).

describe('E10: the agents the machine starts with', () => {
  it('E10: a missing claude is said plainly and left out; the machine runs with the rest', async () => {
    const missing = path.join('/nonexistent', 'claude');
    const r = await agentsFromCli({ agents: ['claude', 'mock'], claudePath: missing });
    expect(r.providers.map((p) => p.name)).toEqual(['mock']);
    expect(r.lines).toEqual([
      {
        agent: 'claude',
        ok: false,
        text: `claude: --claude-path ${missing} is not an executable file`,
      },
      { agent: 'mock', ok: true, text: expect.stringMatching(/^mock: ready — /) },
    ]);
  });

  it('E10: a --codex-path with no codex behind it is said plainly and left out', async () => {
    const r = await agentsFromCli({ agents: ['codex'], codexPath: '/nonexistent/codex' });
    expect(r.providers).toEqual([]);
    expect(r.lines).toEqual([
      {
        agent: 'codex',
        ok: false,
        text: 'codex: --codex-path /nonexistent/codex is not an executable file',
      },
    ]);
  });

  it('E10: a missing gemini is said plainly and left out; a declared ACP agent is offered after the --agent ones', async () => {
    const r = await agentsFromCli(
      { agents: ['gemini', 'mock'], geminiPath: '/nonexistent/gemini' },
      [{ name: 'other', command: process.execPath, args: ['x.js'] }],
    );
    expect(r.providers.map((p) => p.name)).toEqual(['mock', 'other']);
    expect(r.lines[0]).toEqual({
      agent: 'gemini',
      ok: false,
      text: 'gemini: --gemini-path /nonexistent/gemini is not an executable file',
    });
  });
});
