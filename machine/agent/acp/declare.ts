import { readFileSync } from 'node:fs';
import path from 'node:path';

// E10: an ACP agent the user declares by name and command line — `--acp-agent name=command
// args…` (repeatable) or `<state-dir>/agents.json` ({"agents":{"name":{"command","args","env"}}}).
// Parsed at the edge: a bad declaration is refused at start with one code and a message that
// says which declaration and what is wrong; the machine does not start on a guess.

export type AcpAgentSpec = {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
};

export const AGENTS_FILE = 'agents.json';
/** As on the wire (`capabilities.agents`): short, no spaces. */
export const AGENT_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
/** Names the machine gives its own agents; a declaration cannot take them. */
export const BUILT_IN_AGENTS = ['mock', 'claude', 'codex', 'gemini'] as const;

export type DeclareError = { code: 'bad-acp-agent' | 'bad-agents-file'; message: string };
export type Declared = { ok: true; specs: AcpAgentSpec[] } | ({ ok: false } & DeclareError);

function checkName(name: string, where: string): string | null {
  if (!AGENT_NAME.test(name))
    return `${where}: the name must be 1-32 of a-z, 0-9, _ and -, starting with a letter: ${JSON.stringify(name)}`;
  if ((BUILT_IN_AGENTS as readonly string[]).includes(name))
    return `${where}: ${name} is built in; give the declared agent another name`;
  return null;
}

/** One `--acp-agent` value: `name=command arg…`, split at spaces (agents.json for quoting). */
export function parseAcpFlag(
  value: string,
): { ok: true; spec: AcpAgentSpec } | ({ ok: false } & DeclareError) {
  const eq = value.indexOf('=');
  const name = eq < 0 ? '' : value.slice(0, eq).trim();
  const words =
    eq < 0
      ? []
      : value
          .slice(eq + 1)
          .trim()
          .split(/\s+/)
          .filter((w) => w !== '');
  if (eq < 0 || words.length === 0)
    return {
      ok: false,
      code: 'bad-acp-agent',
      message: `--acp-agent must be name=command [args…]: ${JSON.stringify(value)}`,
    };
  const bad = checkName(name, '--acp-agent');
  if (bad !== null) return { ok: false, code: 'bad-acp-agent', message: bad };
  return { ok: true, spec: { name, command: words[0]!, args: words.slice(1) } };
}

const strings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The text of agents.json, parsed; `file` names it in messages. */
export function parseAgentsFile(text: string, file: string): Declared {
  const fail = (why: string): Declared => ({
    ok: false,
    code: 'bad-agents-file',
    message: `${file}: ${why}`,
  });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return fail(`not JSON (${(e as Error).message})`);
  }
  const agents = (doc as { agents?: unknown } | null)?.agents;
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents))
    return fail('must be {"agents": {"<name>": {"command": "…", "args": […], "env": {…}}}}');
  const specs: AcpAgentSpec[] = [];
  for (const [name, raw] of Object.entries(agents as Record<string, unknown>)) {
    const bad = checkName(name, `agent ${JSON.stringify(name)}`);
    if (bad !== null) return fail(bad);
    const a = raw as { command?: unknown; args?: unknown; env?: unknown } | null;
    if (typeof a?.command !== 'string' || a.command === '')
      return fail(`agent ${name}: "command" must be a non-empty string`);
    if (a.args !== undefined && !strings(a.args))
      return fail(`agent ${name}: "args" must be a list of strings`);
    const env = a.env;
    if (
      env !== undefined &&
      (typeof env !== 'object' ||
        env === null ||
        Array.isArray(env) ||
        !Object.values(env).every((v) => typeof v === 'string'))
    )
      return fail(`agent ${name}: "env" must map names to strings`);
    specs.push({
      name,
      command: a.command,
      args: a.args ?? [],
      ...(env !== undefined ? { env: env as Record<string, string> } : {}),
    });
  }
  return { ok: true, specs };
}

/** `<state-dir>/agents.json` when it exists; none is no declaration. */
export function readAgentsFile(stateDir: string): Declared {
  const file = path.join(stateDir, AGENTS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, specs: [] };
    return {
      ok: false,
      code: 'bad-agents-file',
      message: `${file}: cannot read (${(e as Error).message})`,
    };
  }
  return parseAgentsFile(text, file);
}

/** The flags' and the file's declarations together; a name declared twice is refused. */
export function mergeDeclared(flags: AcpAgentSpec[], file: Declared): Declared {
  if (!file.ok) return file;
  const all = [...flags, ...file.specs];
  const seen = new Set<string>();
  for (const s of all) {
    if (seen.has(s.name))
      return {
        ok: false,
        code: 'bad-acp-agent',
        message: `the ACP agent ${s.name} is declared twice (--acp-agent and ${AGENTS_FILE} together name each agent once)`,
      };
    seen.add(s.name);
  }
  return { ok: true, specs: all };
}
