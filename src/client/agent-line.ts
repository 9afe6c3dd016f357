import type { Session } from '../../protocol/index.ts';

// E10: the one line a session shows about its agent — which agent, the model it reported, and
// its own token counts (and cost) so far. Absent fields are left out; a session of a machine
// that predates E10 shows nothing.

const count = (n: number): string =>
  n >= 1_000_000
    ? `${(n / 1_000_000).toFixed(1)}M`
    : n >= 1000
      ? `${(n / 1000).toFixed(1)}k`
      : String(n);

export function agentLine(s: Pick<Session, 'agent' | 'model' | 'usage'>): string | null {
  const parts: string[] = [];
  if (s.agent !== undefined) parts.push(s.agent);
  if (s.model !== undefined) parts.push(s.model);
  if (s.usage !== undefined) {
    parts.push(`${count(s.usage.inputTokens)} in / ${count(s.usage.outputTokens)} out`);
    if (s.usage.costUsd !== undefined) parts.push(`$${s.usage.costUsd.toFixed(2)}`);
  }
  return parts.length > 0 ? parts.join(' · ') : null;
}
