import { execFile } from 'node:child_process';
import path from 'node:path';
import type { AgentCheck } from '../agent.ts';
import { findAgentBinary, type BinarySpec } from '../find-binary.ts';
import { executable } from '../on-path.ts';

// Which `claude` runs (E10 packaging): `--claude-path` when given, else `claude` on PATH (the
// user's own install, with their login), else the CLI `npm run agents:install` put in
// agents/node_modules (@anthropic-ai/claude-agent-sdk-<platform>-<arch>, the SDK's optional
// per-platform package; the root install leaves it out).

export type ClaudeBinary = { ok: true; path: string; how: string } | { ok: false; message: string };

const VERSION_TIMEOUT_MS = 15_000;

export const CLAUDE_BINARY: BinarySpec = {
  name: 'claude',
  product: 'Claude Code',
  packaged(nodeModules) {
    const base = `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`;
    for (const name of [base, `${base}-musl`]) {
      const file = path.join(nodeModules, name, 'claude');
      if (executable(file)) return { command: file, args: [] };
    }
    return null;
  },
};

export function resolveClaude(
  claudePath: string | undefined,
  envPath: string | undefined,
  nodeModules?: string | null,
): ClaudeBinary {
  const found = findAgentBinary(CLAUDE_BINARY, {
    given: claudePath,
    envPath,
    ...(nodeModules !== undefined ? { nodeModules } : {}),
  });
  return found.ok ? { ok: true, path: found.launch.command, how: found.how } : found;
}

/** Runs `<claude> --version`: a binary that cannot start is said now, not at the first dispatch. */
export function checkClaude(bin: ClaudeBinary): Promise<AgentCheck> {
  if (!bin.ok) return Promise.resolve({ ok: false, message: bin.message });
  return new Promise((resolve) => {
    execFile(bin.path, ['--version'], { timeout: VERSION_TIMEOUT_MS }, (err, stdout) => {
      resolve(
        err === null
          ? { ok: true, detail: `${stdout.trim()} (${bin.path}, from ${bin.how})` }
          : { ok: false, message: `claude: ${bin.path} does not start: ${err.message}` },
      );
    });
  });
}
