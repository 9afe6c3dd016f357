import { existsSync } from 'node:fs';
import path from 'node:path';
import { findAgentBinary, type AgentBinary, type BinarySpec } from '../find-binary.ts';

// Which `codex` runs (E10 packaging): `--codex-path` when given, else `codex` on PATH, else the
// one `npm run agents:install` put in agents/node_modules — @openai/codex's launcher (run by this
// Node: it puts Codex's own helpers on PATH) with its per-platform package beside it.

export const CODEX_BINARY: BinarySpec = {
  name: 'codex',
  product: 'Codex',
  packaged(nodeModules) {
    const launcher = path.join(nodeModules, '@openai/codex/bin/codex.js');
    const native = path.join(nodeModules, `@openai/codex-${process.platform}-${process.arch}`);
    return existsSync(launcher) && existsSync(path.join(native, 'package.json'))
      ? { command: process.execPath, args: [launcher] }
      : null;
  },
};

export function resolveCodex(
  codexPath: string | undefined,
  envPath: string | undefined,
  nodeModules?: string | null,
): AgentBinary {
  return findAgentBinary(CODEX_BINARY, {
    given: codexPath,
    envPath,
    ...(nodeModules !== undefined ? { nodeModules } : {}),
  });
}
