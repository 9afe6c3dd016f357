import type { AgentProvider } from './agent.ts';
import { mockProvider } from './mock/provider.ts';

// E10: the agents this machine offers, its default first (`capabilities.agents`). A dispatch
// naming another is refused with `agent-unavailable`; one naming none gets the default.

export type Agents = {
  readonly names: readonly string[];
  /** Absent when no agent could start here: every dispatch is refused. */
  readonly default: string | undefined;
  get(name: string): AgentProvider | undefined;
};

export function makeAgents(providers: readonly AgentProvider[] = [mockProvider]): Agents {
  const byName = new Map(providers.map((p) => [p.name, p]));
  return {
    names: [...byName.keys()],
    default: providers[0]?.name,
    get: (name) => byName.get(name),
  };
}
