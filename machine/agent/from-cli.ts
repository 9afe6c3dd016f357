import type { AgentName, CliOptions } from '../desk/cli.ts';
import type { AgentProvider } from './agent.ts';
import { claudeProvider } from './claude/provider.ts';
import { codexProvider } from './codex/provider.ts';
import { mockProvider } from './mock/provider.ts';

// E10: the `--agent` list made real. Each agent is checked at start (is it installed, does it
// start); what is missing is said plainly and left out, and the machine runs with the rest.

export type AgentLine = { agent: AgentName; ok: boolean; text: string };

function providerFor(
  name: AgentName,
  o: Pick<CliOptions, 'claudePath' | 'codexPath'>,
): AgentProvider {
  switch (name) {
    case 'mock':
      return mockProvider;
    case 'claude':
      return claudeProvider(o.claudePath !== undefined ? { claudePath: o.claudePath } : {});
    case 'codex':
      return codexProvider(o.codexPath !== undefined ? { codexPath: o.codexPath } : {});
  }
}

export async function agentsFromCli(
  o: Pick<CliOptions, 'agents' | 'claudePath' | 'codexPath'>,
): Promise<{ providers: AgentProvider[]; lines: AgentLine[] }> {
  const checked = await Promise.all(
    o.agents.map(async (agent) => {
      const p = providerFor(agent, o);
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
