import type { Timeouts } from '../../../protocol/timers.ts';
import type { AgentProvider } from '../agent.ts';
import { checkClaude, resolveClaude } from './binary.ts';
import { openClaudeSession, type ClaudeConfig } from './session.ts';

// `--agent claude` (E10): Claude Code through @anthropic-ai/claude-agent-sdk. The CLI runs with
// the machine's environment and the user's own settings and login (model and provider are never
// overridden); tests isolate it with `env` and `settingSources: []`.

export const CLAUDE_AGENT = 'claude';

export type ClaudeProviderOptions = {
  /** `--claude-path`. */
  claudePath?: string;
  env?: Record<string, string>;
  settingSources?: [];
  /** Tests only: the Stop backstop's clock instead of the machine's (held, it never fires). */
  timers?: Timeouts;
};

export function claudeProvider(o: ClaudeProviderOptions = {}): AgentProvider {
  const bin = resolveClaude(o.claudePath, o.env?.PATH ?? process.env.PATH);
  return {
    name: CLAUDE_AGENT,
    check: () => checkClaude(bin),
    open(options) {
      if (!bin.ok) throw new Error(bin.message);
      const cfg: ClaudeConfig = {
        path: bin.path,
        ...(o.env !== undefined ? { env: o.env } : {}),
        ...(o.settingSources !== undefined ? { settingSources: o.settingSources } : {}),
      };
      return openClaudeSession(cfg, o.timers ? { ...options, timers: o.timers } : options);
    },
  };
}
