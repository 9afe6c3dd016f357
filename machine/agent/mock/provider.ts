import type { AgentContext, AgentProvider, AgentSession } from '../agent.ts';
import { runTurn } from '../runner.ts';
import { demoSteps, parseScript, type ScriptStep } from '../script.ts';

// The scripted agent (docs/mock-agent.md) behind the E10 seam: a prompt is a script, or the
// default demo. Its tools run through the ToolHost (local or the device), so it has no process
// of its own to end; a stop reaches it through the turn's signal.

export const MOCK_AGENT = 'mock';

async function stepsFor(ctx: AgentContext, prompt: string): Promise<ScriptStep[] | string> {
  const parsed = parseScript(prompt);
  if (!parsed.ok) return parsed.message;
  if (parsed.script) return parsed.steps;
  const listing = await ctx.host().listDir(ctx.cwd);
  const files = listing.ok ? listing.value.filter((e) => e.kind === 'file').map((e) => e.name) : [];
  const first = files.find((f) => /^readme/i.test(f)) ?? files[0] ?? null;
  return demoSteps(first);
}

const mockSession: AgentSession = {
  async runTurn(prompt, ctx) {
    const steps = await stepsFor(ctx, prompt);
    if (typeof steps !== 'string') return runTurn(steps, ctx);
    ctx.assistant(steps);
    return { ok: false, summary: steps, placeholder: false, close: false };
  },
  async close() {},
};

export const mockProvider: AgentProvider = {
  name: MOCK_AGENT,
  check: async () => ({ ok: true, detail: 'the scripted agent (docs/mock-agent.md)' }),
  open: () => mockSession,
};
