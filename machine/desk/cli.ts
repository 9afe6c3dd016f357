import { parseArgs } from 'node:util';
import os from 'node:os';
import { isMember } from '../../protocol/index.ts';
import { DESK_HELP } from './desk.ts';
import { PRESENCE_POLICIES, type PresencePolicy } from '../phones/presence-gate.ts';
import { PUSH_ANSWER_WINDOW_MS } from '../links/push-receipts.ts';
import { parseAcpFlag, type AcpAgentSpec } from '../agent/acp/declare.ts';

// `npm run machine -- …`: parsed at the edge into typed options or one clear error.

export const DEFAULT_APP_URL = 'http://127.0.0.1:4173';
export const DEFAULT_STATE_DIR = '.data/machine';

export const HELP_TEXT = `Usage: npm run machine -- --relay <ws(s)://host:port> [options]

The machine side of dsh-dispatch wire v1: runs a scripted agent, Claude Code or Codex (--agent).

Options:
  --relay <url>          relay to connect to (ws:// or wss://), required
  --name <name>          machine name shown on the phone (default: this host's name)
  --root <dir>           a folder phones may dispatch into; repeat for more (none: dispatch off)
  --state-dir <dir>      where the pairing secret lives (default: ${DEFAULT_STATE_DIR})
  --app-url <url>        the app's address for the pairing link (default: ${DEFAULT_APP_URL})
  --allow-full-access    let phones dispatch sessions with access:'full' (default: refused)
  --require-presence none|risky|all
                         which allows need the owner's fingerprint or face on the phone (E7):
                         risky ones (no rule offered), all, or none (default: none); a deny
                         never does, a full-access dispatch does under risky and all
  --re-pair              discard the pairing secret and make a new one (old phones must re-pair)
  --push-answer-window-ms <n>
                         after a push hint, how long the relay's silence must last before the
                         phone is told "sent" (default: ${PUSH_ANSWER_WINDOW_MS}; keep it above
                         the relay's --push-timeout-ms)
  --device-lane-port <n> host the device lane on 127.0.0.1:<n> (0: any free port); while the
                         chosen enrolled device is connected, tools run on it (see docs/device.md)
  --device <id>          with several devices enrolled, the one tools run on (default: the one
                         enrolled last)
  --agent <name>         an agent phones may start: mock (the scripted one), claude (Claude
                         Code), codex (Codex) or gemini (Gemini CLI over ACP); repeat for more,
                         the first is the default (none given: mock). Each is checked at start;
                         one that is missing is said and left out, the machine runs with the
                         rest (E10)
  --acp-agent <name>=<command> [args…]
                         any other agent that speaks ACP, declared by name and command line
                         (repeat for more; also <state-dir>/agents.json); offered after the
                         --agent ones (E10, docs/agents.md)
  --claude-path <file>   the claude binary (default: claude on PATH, else the one
                         \`npm run agents:install\` put in agents/node_modules)
  --codex-path <file>    the codex binary (default: codex on PATH, else the one in
                         agents/node_modules)
  --gemini-path <file>   the gemini binary (default: gemini on PATH, else the one in
                         agents/node_modules)
  --verbose              at an interactive terminal, also print the relay's, phones' and
                         devices' comings and goings (a pipe or a file always gets every line)
  --help                 this text

${DESK_HELP}
`;

export type CliOptions = {
  relay: string;
  name: string;
  roots: string[];
  stateDir: string;
  appUrl: string;
  allowFullAccess: boolean;
  /** E7: `--require-presence`. */
  requirePresence: PresencePolicy;
  rePair: boolean;
  /** `--push-answer-window-ms`: absent means PUSH_ANSWER_WINDOW_MS. */
  pushAnswerWindowMs?: number;
  /** `--device-lane-port`: absent when the machine hosts no device lane. */
  deviceLanePort?: number;
  /** `--device`: the enrolled device tools run on; absent = the one enrolled last (H6). */
  device?: string;
  verbose: boolean;
  /** E10: `--agent`, in order, no repeats; the first is the default. */
  agents: AgentName[];
  claudePath?: string;
  codexPath?: string;
  geminiPath?: string;
  /** E10: `--acp-agent`, in order (agents.json adds more at start). */
  acpAgents: AcpAgentSpec[];
};

/** E10: the agents `--agent` can name. */
export const AGENT_NAMES = {
  mock: 'mock',
  claude: 'claude',
  codex: 'codex',
  gemini: 'gemini',
} as const;
export type AgentName = (typeof AGENT_NAMES)[keyof typeof AGENT_NAMES];

export type CliResult =
  | { ok: true; help: true }
  | { ok: true; help: false; options: CliOptions }
  | {
      ok: false;
      code:
        | 'bad-args'
        | 'missing-relay'
        | 'bad-relay-url'
        | 'bad-app-url'
        | 'bad-device-lane-port'
        | 'bad-device'
        | 'bad-push-answer-window'
        | 'bad-require-presence'
        | 'bad-agent'
        | 'bad-acp-agent';
      message: string;
    };

function isUrl(s: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(s).protocol);
  } catch {
    return false;
  }
}

export function parseCli(argv: readonly string[]): CliResult {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        relay: { type: 'string' },
        name: { type: 'string' },
        root: { type: 'string', multiple: true },
        'state-dir': { type: 'string' },
        'app-url': { type: 'string' },
        'allow-full-access': { type: 'boolean' },
        'require-presence': { type: 'string' },
        're-pair': { type: 'boolean' },
        'device-lane-port': { type: 'string' },
        device: { type: 'string' },
        verbose: { type: 'boolean' },
        'push-answer-window-ms': { type: 'string' },
        agent: { type: 'string', multiple: true },
        'claude-path': { type: 'string' },
        'codex-path': { type: 'string' },
        'gemini-path': { type: 'string' },
        'acp-agent': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    return { ok: false, code: 'bad-args', message: `${(e as Error).message} (see --help)` };
  }
  if (values.help) return { ok: true, help: true };
  if (values.relay === undefined) {
    return { ok: false, code: 'missing-relay', message: '--relay <ws://host:port> is required' };
  }
  if (!isUrl(values.relay, ['ws:', 'wss:'])) {
    return {
      ok: false,
      code: 'bad-relay-url',
      message: `--relay must be a ws:// or wss:// URL: ${values.relay}`,
    };
  }
  const appUrl = (values['app-url'] ?? DEFAULT_APP_URL).replace(/\/+$/, '');
  if (!isUrl(appUrl, ['http:', 'https:'])) {
    return {
      ok: false,
      code: 'bad-app-url',
      message: `--app-url must be an http(s) URL: ${appUrl}`,
    };
  }
  const lanePort = values['device-lane-port'];
  if (lanePort !== undefined && !(/^\d{1,5}$/.test(lanePort) && Number(lanePort) <= 65535)) {
    return {
      ok: false,
      code: 'bad-device-lane-port',
      message: `--device-lane-port must be a port number 0-65535: ${lanePort}`,
    };
  }
  const device = values.device;
  if (device !== undefined && (lanePort === undefined || !/^[A-Za-z0-9_-]{1,128}$/.test(device))) {
    return {
      ok: false,
      code: 'bad-device',
      message:
        lanePort === undefined
          ? '--device needs --device-lane-port (the machine hosts the lane its devices dial)'
          : `--device must be a device id as enrolled (letters, digits, _ and -): ${device}`,
    };
  }
  const windowMs = values['push-answer-window-ms'];
  if (windowMs !== undefined && !(/^\d{1,7}$/.test(windowMs) && Number(windowMs) >= 1)) {
    return {
      ok: false,
      code: 'bad-push-answer-window',
      message: `--push-answer-window-ms must be a whole number of milliseconds, 1-9999999: ${windowMs}`,
    };
  }
  const presence = values['require-presence'] ?? 'none';
  if (!isMember(PRESENCE_POLICIES, presence)) {
    return {
      ok: false,
      code: 'bad-require-presence',
      message: `--require-presence must be none, risky or all: ${presence}`,
    };
  }
  const agents: AgentName[] = [];
  for (const a of values.agent ?? ['mock']) {
    if (!isMember(AGENT_NAMES, a)) {
      return {
        ok: false,
        code: 'bad-agent',
        message: `--agent must be mock, claude, codex or gemini: ${a}`,
      };
    }
    if (!agents.includes(a)) agents.push(a);
  }
  const acpAgents: AcpAgentSpec[] = [];
  for (const v of values['acp-agent'] ?? []) {
    const d = parseAcpFlag(v);
    if (!d.ok) return { ok: false, code: d.code as 'bad-acp-agent', message: d.message };
    if (acpAgents.some((x) => x.name === d.spec.name))
      return {
        ok: false,
        code: 'bad-acp-agent',
        message: `--acp-agent ${d.spec.name} is declared twice`,
      };
    acpAgents.push(d.spec);
  }
  return {
    ok: true,
    help: false,
    options: {
      agents,
      ...(values['claude-path'] !== undefined ? { claudePath: values['claude-path'] } : {}),
      ...(values['codex-path'] !== undefined ? { codexPath: values['codex-path'] } : {}),
      ...(values['gemini-path'] !== undefined ? { geminiPath: values['gemini-path'] } : {}),
      acpAgents,
      relay: values.relay,
      name: values.name ?? os.hostname(),
      roots: values.root ?? [],
      stateDir: values['state-dir'] ?? DEFAULT_STATE_DIR,
      appUrl,
      allowFullAccess: values['allow-full-access'] ?? false,
      requirePresence: presence,
      rePair: values['re-pair'] ?? false,
      verbose: values.verbose ?? false,
      ...(device !== undefined ? { device } : {}),
      ...(lanePort !== undefined ? { deviceLanePort: Number(lanePort) } : {}),
      ...(windowMs !== undefined ? { pushAnswerWindowMs: Number(windowMs) } : {}),
    },
  };
}
