import { describe, expect, it } from 'vitest';
import { agentLine } from './agent-line.ts';

describe('E10: the agent line of a session', () => {
  it('E10: agent, model, usage and cost in one line; nothing for a machine without E10', () => {
    expect(
      agentLine({
        agent: 'claude',
        model: 'claude-opus-5-5',
        usage: { inputTokens: 12_345, outputTokens: 678, costUsd: 0.0421 },
      }),
    ).toBe('claude · claude-opus-5-5 · 12.3k in / 678 out · $0.04');
    expect(agentLine({ agent: 'mock' })).toBe('mock');
    expect(agentLine({})).toBeNull();
  });
});
