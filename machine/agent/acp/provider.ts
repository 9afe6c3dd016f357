import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Timeouts } from '../../../protocol/timers.ts';
import type { AgentCheck, AgentProvider } from '../agent.ts';
import { findAgentBinary, type BinarySpec } from '../find-binary.ts';
import { executable, onPath } from '../on-path.ts';
import type { AcpAgentSpec } from './declare.ts';
import { keepGeminiHistory } from './gemini-history.ts';
import { openAcpSession, type AcpSessionConfig } from './session.ts';

// E10: any agent that speaks ACP behind the seam. Gemini CLI is built in (`--agent gemini` runs
// `gemini --acp`: `--gemini-path`, else `gemini` on PATH, else the @google/gemini-cli in agents/
// run by this Node); any other is declared by the user by name and command line (declare.ts).

export const GEMINI_AGENT = 'gemini';
const VERSION_TIMEOUT_MS = 15_000;

export type AcpProviderOptions = {
  /** Tests only: an isolated environment (HOME, the fake model server). */
  env?: NodeJS.ProcessEnv;
  /** Tests only: the Stop backstop's and idle limit's clock instead of the machine's. */
  timers?: Timeouts;
};

type Found = { ok: true; spec: AcpAgentSpec; how: string } | { ok: false; message: string };

// The packaged CLI is the bundle `npm run agents:install` put in agents/node_modules, run by this
// Node (its `bin` is a script, not a native file).
export const GEMINI_BINARY: BinarySpec = {
  name: GEMINI_AGENT,
  product: 'Gemini CLI',
  packaged(nodeModules) {
    const file = path.join(nodeModules, '@google', 'gemini-cli', 'bundle', 'gemini.js');
    return existsSync(file) ? { command: process.execPath, args: [file] } : null;
  },
};

export function resolveGemini(
  geminiPath: string | undefined,
  envPath: string | undefined,
  nodeModules?: string | null,
): Found {
  const found = findAgentBinary(GEMINI_BINARY, {
    given: geminiPath,
    envPath,
    ...(nodeModules !== undefined ? { nodeModules } : {}),
  });
  if (!found.ok) return found;
  const { command, args } = found.launch;
  return {
    ok: true,
    spec: { name: GEMINI_AGENT, command, args: [...args, '--acp'] },
    how: found.how,
  };
}

/** A declared agent's command: a path (absolute or from here) or a name on PATH. */
export function resolveDeclared(spec: AcpAgentSpec, envPath: string | undefined): Found {
  const c = spec.command;
  const file = c.includes('/') ? path.resolve(c) : onPath(c, envPath);
  return file !== null && executable(file)
    ? { ok: true, spec: { ...spec, command: file }, how: 'declared' }
    : {
        ok: false,
        message: `${spec.name}: ${c} ${c.includes('/') ? 'is not an executable file' : 'is not on PATH'} — fix its declaration (--acp-agent or agents.json)`,
      };
}

function versionCheck(
  found: Extract<Found, { ok: true }>,
  env: NodeJS.ProcessEnv,
): Promise<AgentCheck> {
  const args = found.spec.args.filter((a) => a !== '--acp');
  return new Promise((resolve) => {
    execFile(
      found.spec.command,
      [...args, '--version'],
      { env, timeout: VERSION_TIMEOUT_MS },
      (err, stdout) => {
        resolve(
          err === null
            ? { ok: true, detail: `gemini ${stdout.trim()} (${found.how})` }
            : {
                ok: false,
                message: `gemini: ${found.spec.command} does not start: ${err.message.split('\n')[0]}`,
              },
        );
      },
    );
  });
}

function provider(
  name: string,
  found: Found,
  check: () => Promise<AgentCheck>,
  o: AcpProviderOptions,
  beforeLoad?: AcpSessionConfig['beforeLoad'],
): AgentProvider {
  return {
    name,
    check,
    open(options) {
      if (!found.ok) throw new Error(found.message);
      const env = o.env;
      return openAcpSession(
        {
          spec: found.spec,
          ...(env !== undefined ? { env } : {}),
          ...(beforeLoad ? { beforeLoad } : {}),
        },
        o.timers ? { ...options, timers: o.timers } : options,
      );
    },
  };
}

/** `--agent gemini`: checked with `gemini --version`. */
export function geminiProvider(
  o: AcpProviderOptions & { geminiPath?: string } = {},
): AgentProvider {
  const found = resolveGemini(o.geminiPath, o.env?.PATH ?? process.env.PATH);
  const check = (): Promise<AgentCheck> =>
    found.ok
      ? versionCheck(found, o.env ?? process.env)
      : Promise.resolve({ ok: false, message: found.message });
  return provider(GEMINI_AGENT, found, check, o, (id, env) => void keepGeminiHistory(id, env));
}

/**
 * A declared ACP agent: checked by finding its command (ACP has no `--version`; starting it costs
 * seconds and may need a login, so the first turn says what the agent itself says).
 */
export function declaredAcpProvider(spec: AcpAgentSpec, o: AcpProviderOptions = {}): AgentProvider {
  const found = resolveDeclared(spec, o.env?.PATH ?? process.env.PATH);
  const check = (): Promise<AgentCheck> =>
    Promise.resolve(
      found.ok
        ? { ok: true, detail: `ACP agent ${[found.spec.command, ...found.spec.args].join(' ')}` }
        : { ok: false, message: found.message },
    );
  return provider(spec.name, found, check, o);
}
