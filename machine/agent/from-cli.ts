import type { AgentName, CliOptions } from '../desk/cli.ts';
import type { AgentProvider } from './agent.ts';
import type { AcpAgentSpec } from './acp/declare.ts';
import { declaredAcpProvider, geminiProvider } from './acp/provider.ts';
import { claudeProvider } from './claude/provider.ts';
import { codexProvider } from './codex/provider.ts';
import { mockProvider } from './mock/provider.ts';

// E10: the `--agent` list made real, then the ACP agents the user declared (`--acp-agent`,
// `<state-dir>/agents.json`). Each agent is checked at start (is it installed, does it start);
// what is missing is said plainly and left out, and the machine runs with the rest.

export type AgentLine = { agent: string; ok: boolean; text: string };

function providerFor(
  name: AgentName,
  o: Pick<CliOptions, 'claudePath' | 'codexPath' | 'geminiPath'>,
): AgentProvider {
  switch (name) {
    case 'mock':
      return mockProvider;
    case 'claude':
      return claudeProvider(o.claudePath !== undefined ? { claudePath: o.claudePath } : {});
    case 'codex':
      return codexProvider(o.codexPath !== undefined ? { codexPath: o.codexPath } : {});
    case 'gemini':
      return geminiProvider(o.geminiPath !== undefined ? { geminiPath: o.geminiPath } : {});
  }
}

export async function agentsFromCli(
  o: Pick<CliOptions, 'agents' | 'claudePath' | 'codexPath' | 'geminiPath'>,
  declared: readonly AcpAgentSpec[] = [],
): Promise<{ providers: AgentProvider[]; lines: AgentLine[] }> {
  const all = [
    ...o.agents.map((agent) => ({ agent: agent as string, p: providerFor(agent, o) })),
    ...declared.map((spec) => ({ agent: spec.name, p: declaredAcpProvider(spec) })),
  ];
  const checked = await Promise.all(
    all.map(async ({ agent, p }) => {
      const c = await p.check();
      return c.ok
        ? { agent, provider: p, ok: true, text: `${agent}: ready — ${c.detail}` }
        : { agent, provider: null, ok: false, text: c.message };
    }),
  );
  return {
    providers: checked.flatMap((c) => (c.provider !== null ? [c.provider] : [])),
    lines: checked.map(({ agent, ok, text }) => ({ agent, ok, text })),
  };
}
