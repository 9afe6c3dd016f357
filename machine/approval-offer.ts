import path from 'node:path';
import {
  MAX_EDITABLE_BYTES,
  MAX_RULE_KEY_CHARS,
  utf8ByteLength,
  type AccessLevel,
  type ApprovalRule,
  type Editable,
} from '../protocol/index.ts';
import { isInside } from './cwd-guard.ts';

// E2 + E3: what the mock machine offers with each approval it raises — the tool's name, the rule
// a remembered decision would match (and the scopes it may be remembered for), and the editable
// command line. This is the reference policy a real plugin follows (docs/protocol.md, E2/E3):
// - `write` inside the session's folder: `session` and `always`; key `write: <dir>/**` for a file
//   in a sub-folder, `write: <file>` for one at the top.
// - `run` of a simple command: `session` only; key `run: <program> <first argument>`.
// - Nothing for what it classes as risky: any full-access session, a write outside the folder
//   (or into `.git/`), a command that is not simple (quotes, `;`, `|`, `&`, `$`, `>`, globs, line
//   breaks…), `rm -r…`, network tools, and programs that run another program.
// A risky request has no key, so no rule can ever match it.

/**
 * What the agent asks approval for; paths are absolute. E10: `agentTool` is a real agent's own
 * tool name (`Bash`, `Edit`…), sent as `tool` (rules are kept per that name); `other` is any
 * tool that is neither a command nor a write (a read outside the folder, a fetch…): never
 * remembered, never editable.
 */
export type ApprovalAsk = { agentTool?: string } & (
  | {
      tool: 'run';
      title: string;
      detail: string;
      command: string;
      /** E3: `false` when the agent cannot run an edited command (Codex). */
      editable?: false;
    }
  | { tool: 'write'; title: string; detail: string; path: string }
  | { tool: 'other'; title: string; detail: string }
);

export type ApprovalOffer = { tool: string; rule?: ApprovalRule; editable?: Editable };

export type OfferContext = { cwd: string; access: AccessLevel; root: string | undefined };

/** One word of a simple command: no quoting, expansion, globbing, redirection or chaining. */
const SIMPLE_COMMAND = /^[\w./:=@%+,-]+(?: +[\w./:=@%+,-]+)*$/;
const NETWORK = new Set([
  'curl',
  'wget',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'nc',
  'ncat',
  'netcat',
  'telnet',
  'ftp',
  'socat',
]);
/** Programs whose first argument does not say what will run (or with whose rights). */
const RUNS_ANOTHER = new Set(['sudo', 'su', 'doas', 'env', 'xargs', 'nohup', 'timeout', 'nice']);
const NETWORK_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  git: new Set(['push', 'pull', 'fetch', 'clone', 'remote']),
  npm: new Set(['publish', 'login', 'adduser']),
};
/** A path segment a key could not name unambiguously. */
const PLAIN_SEGMENT = /^[^*?[\]{}\u0000-\u001f\u007f]+$/;

/** `rm -r`, `rm -fr`, `rm --recursive`: recursive removal is never remembered. */
const recursiveRemove = (args: string[]) =>
  args.some((a) => a === '--recursive' || /^-[a-zA-Z]*[rR]/.test(a));

/** The key for a command, or null when the command is risky or not simple. */
export function commandKey(command: string): string | null {
  const line = command.trim();
  if (!SIMPLE_COMMAND.test(line)) return null;
  const [program = '', ...args] = line.split(/ +/);
  const name = path.basename(program);
  if (NETWORK.has(name) || RUNS_ANOTHER.has(name)) return null;
  if (NETWORK_SUBCOMMANDS[name]?.has(args[0] ?? '')) return null;
  if (name === 'rm' && recursiveRemove(args)) return null;
  return [`run: ${program}`, ...args.slice(0, 1)].join(' ');
}

/** The key for a write to `file`, or null when it is outside the folder (or into `.git/`). */
export function writeKey(file: string, cwd: string): string | null {
  if (!isInside(file, cwd) || file === cwd) return null;
  const segments = path.relative(cwd, file).split(path.sep);
  if (segments[0] === '.git' || !segments.every((s) => PLAIN_SEGMENT.test(s))) return null;
  return segments.length > 1 ? `write: ${segments[0]}/**` : `write: ${segments[0]}`;
}

export function approvalOffer(ask: ApprovalAsk, ctx: OfferContext): ApprovalOffer {
  const offer: ApprovalOffer = { tool: ask.agentTool ?? ask.tool };
  // E3: the command line, when it can be carried whole (it is what will run, so never clamped);
  // its JSON form is bounded too, so the request always fits the envelope beside its detail.
  if (
    ask.tool === 'run' &&
    ask.editable !== false &&
    utf8ByteLength(JSON.stringify(ask.command)) <= MAX_EDITABLE_BYTES
  ) {
    offer.editable = { label: 'Command', value: ask.command };
  }
  if (ctx.access === 'full' || ask.tool === 'other') return offer;
  const key = ask.tool === 'run' ? commandKey(ask.command) : writeKey(ask.path, ctx.cwd);
  if (key === null || key.length > MAX_RULE_KEY_CHARS) return offer;
  const always = ask.tool === 'write' && ctx.root !== undefined;
  offer.rule = { key, scopes: always ? ['session', 'always'] : ['session'] };
  return offer;
}
