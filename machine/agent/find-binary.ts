import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { executable, onPath } from './on-path.ts';

// Which binary an agent runs (E10 packaging): `--<agent>-path` when given, else `<agent>` on PATH
// (the user's own install, with their login), else the one `npm run agents:install` put in
// agents/node_modules — the root `npm ci` never installs the agents' ~400 MB CLIs. When none is
// there, one plain line names all three ways, and the machine runs with the other agents.

/** What runs the agent: a file, with the arguments that come before the agent's own. */
export type Launch = { command: string; args: readonly string[] };

export type AgentBinary =
  { ok: true; launch: Launch; how: string } | { ok: false; message: string };

export type BinarySpec = {
  /** The agent's command: its name on PATH, its `--<name>-path` flag, the start of its lines. */
  name: string;
  /** What a user installs to have it on PATH ("Claude Code"). */
  product: string;
  /** The one installed in `nodeModules` (agents/node_modules), when it is complete; else null. */
  packaged(nodeModules: string): Launch | null;
};

/** agents/package.json is known by this name (not just any folder called agents). */
export const AGENTS_PACKAGE_NAME = 'dsh-dispatch-agents';
export const AGENTS_INSTALL = 'npm run agents:install';

function isAgentsFolder(dir: string): boolean {
  try {
    const pkg: unknown = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return (pkg as { name?: unknown }).name === AGENTS_PACKAGE_NAME;
  } catch {
    return false;
  }
}

/**
 * agents/node_modules of the repository this module is in: the nearest folder above it with an
 * `agents/` of ours. The same from the sources (machine/agent/) and from an esbuild bundle
 * (node_modules/.cache/…, how the tests and the bench start the machine).
 */
export function agentsNodeModules(
  from = path.dirname(fileURLToPath(import.meta.url)),
): string | null {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const agents = path.join(dir, 'agents');
    if (isAgentsFolder(agents)) return path.join(agents, 'node_modules');
    if (path.dirname(dir) === dir) return null;
  }
}

export function notFoundMessage(spec: Pick<BinarySpec, 'name' | 'product'>): string {
  return `${spec.name}: not found — install ${spec.product}, pass --${spec.name}-path, or run \`${AGENTS_INSTALL}\``;
}

export type Where = {
  /** `--<name>-path`. */
  given?: string | undefined;
  /** The PATH to search (the agent's environment's). */
  envPath: string | undefined;
  /** agents/node_modules; found from this module when absent, null for none. */
  nodeModules?: string | null;
};

export function findAgentBinary(spec: BinarySpec, where: Where): AgentBinary {
  const flag = `--${spec.name}-path`;
  if (where.given !== undefined) {
    const file = path.resolve(where.given);
    return executable(file)
      ? { ok: true, launch: { command: file, args: [] }, how: flag }
      : { ok: false, message: `${spec.name}: ${flag} ${file} is not an executable file` };
  }
  const found = onPath(spec.name, where.envPath);
  if (found !== null) return { ok: true, launch: { command: found, args: [] }, how: 'PATH' };
  const nodeModules = where.nodeModules === undefined ? agentsNodeModules() : where.nodeModules;
  const packaged = nodeModules === null ? null : spec.packaged(nodeModules);
  if (packaged !== null) return { ok: true, launch: packaged, how: `agents/ (${AGENTS_INSTALL})` };
  return { ok: false, message: notFoundMessage(spec) };
}
