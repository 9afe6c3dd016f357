import path from 'node:path';
import {
  MAX_EDITABLE_BYTES,
  MAX_RULE_KEY_CHARS,
  utf8ByteLength,
  type AccessLevel,
  type ApprovalRisk,
  type ApprovalRule,
  type Editable,
  type RiskReason,
} from '../../protocol/index.ts';
import { isInside } from '../dispatch/cwd-guard.ts';
import { broadKey, FIND_DELETES, FIND_RUNS } from './read-only-commands.ts';

// E2 + E3 + E11: what the mock machine offers with each approval it raises — the tool's name,
// the rule a remembered decision would match (and the scopes it may be remembered for), the
// editable command line, and, when it offers no rule, why it classes the request as risky. This
// is the reference policy a real plugin follows (docs/protocol.md, E2/E3/E11):
// - `write` inside the session's folder: `session` and `always`; key `write: <dir>/**` for a file
//   in a sub-folder, `write: <file>` for one at the top.
// - `run` of a simple command: `session` only; key `run: <the exact command line>`, so a rule
//   covers that command and nothing else (one for `git reset` never allows `git reset --hard`).
//   Only the read-only commands of read-only-commands.ts are keyed more broadly (`run: ls *`).
// - Nothing, and a `risk` reason instead, for what it classes as risky: any full-access session,
//   a write outside the folder (or into `.git/`), a command that is not simple (quotes, `;`, `|`,
//   `&`, `$`, `>`, globs, line breaks…), recursive deletes (`rm -r`, `find -delete`), network
//   tools, a forced push, and programs that run another program.
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

export type ApprovalOffer = {
  tool: string;
  rule?: ApprovalRule;
  editable?: Editable;
  /** E11: set exactly when no rule is offered. */
  risk?: ApprovalRisk;
};

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
/** Words that make `git`/`npm` reach the network, wherever they stand (`git -C . push` too). */
const NETWORK_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  git: new Set(['push', 'pull', 'fetch', 'clone', 'remote', 'ls-remote', 'submodule']),
  npm: new Set(['publish', 'login', 'adduser', 'unpublish', 'deprecate']),
};
/** A path segment a key could not name unambiguously. */
const PLAIN_SEGMENT = /^[^*?[\]{}\u0000-\u001f\u007f]+$/;

/** A long option that is `name` or abbreviates it (getopt_long and git accept unique prefixes). */
const abbreviates = (arg: string, name: string) => {
  const given = arg.split('=')[0]!;
  return given.length >= 3 && given.startsWith('--') && name.startsWith(given);
};

/** `rm -r`, `rm -fr`, `rm --recursive` (or `--recur`): recursive removal is never remembered. */
const recursiveRemove = (args: string[]) =>
  args.some((a) => abbreviates(a, '--recursive') || /^-[a-zA-Z]*[rR]/.test(a));

/** `git push --force` (or its prefixes and variants), `-f` alone or bundled, or a `+refspec`. */
const forcePush = (args: string[]) =>
  args.includes('push') &&
  args.some(
    (a) =>
      a.startsWith('--force') ||
      abbreviates(a, '--force') ||
      /^-[a-zA-Z]*f/.test(a) ||
      a.startsWith('+'),
  );

/** A key, or why there is none (E11). */
export type Classified = { key: string } | { risk: RiskReason };

/** The key for a command, or why it is risky. `cwd` decides whether a read stays in the folder. */
export function classifyCommand(command: string, cwd: string): Classified {
  const line = command.trim();
  if (!SIMPLE_COMMAND.test(line)) return { risk: 'not-simple' };
  const words = line.split(/ +/);
  const [program = '', ...args] = words;
  const name = path.basename(program);
  if (name === 'git' && forcePush(args)) return { risk: 'force-push' };
  if (NETWORK.has(name) || args.some((a) => NETWORK_SUBCOMMANDS[name]?.has(a)))
    return { risk: 'network' };
  if (RUNS_ANOTHER.has(name)) return { risk: 'runs-another-program' };
  if (name === 'rm' && recursiveRemove(args)) return { risk: 'recursive-delete' };
  if (name === 'find' && args.some((a) => FIND_DELETES.includes(a)))
    return { risk: 'recursive-delete' };
  if (name === 'find' && args.some((a) => FIND_RUNS.includes(a)))
    return { risk: 'runs-another-program' };
  const key = broadKey(words, cwd) ?? `run: ${words.join(' ')}`;
  return key.length > MAX_RULE_KEY_CHARS ? { risk: 'other' } : { key };
}

/** The key for a command, or null when the command is risky or not simple. */
export function commandKey(command: string, cwd: string): string | null {
  const c = classifyCommand(command, cwd);
  return 'key' in c ? c.key : null;
}

/** The key for a write to `file`, or why there is none (outside the folder, `.git/`, a glob). */
export function classifyWrite(file: string, cwd: string): Classified {
  if (!isInside(file, cwd) || file === cwd) return { risk: 'outside-folder' };
  const segments = path.relative(cwd, file).split(path.sep);
  if (segments[0] === '.git' || !segments.every((s) => PLAIN_SEGMENT.test(s)))
    return { risk: 'other' };
  const key = segments.length > 1 ? `write: ${segments[0]}/**` : `write: ${segments[0]}`;
  return key.length > MAX_RULE_KEY_CHARS ? { risk: 'other' } : { key };
}

/** The key for a write to `file`, or null when it is outside the folder (or into `.git/`). */
export function writeKey(file: string, cwd: string): string | null {
  const c = classifyWrite(file, cwd);
  return 'key' in c ? c.key : null;
}

/** What a request of this session is classed as: its key, or why it is risky. */
export function classify(ask: ApprovalAsk, ctx: OfferContext): Classified {
  if (ctx.access === 'full') return { risk: 'full-access' };
  if (ask.tool === 'other') return { risk: 'other' };
  return ask.tool === 'run'
    ? classifyCommand(ask.command, ctx.cwd)
    : classifyWrite(ask.path, ctx.cwd);
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
  const c = classify(ask, ctx);
  // E11: no rule offered = risky, and the card says why.
  if ('risk' in c) return { ...offer, risk: { reason: c.risk } };
  const always = ask.tool === 'write' && ctx.root !== undefined;
  offer.rule = { key: c.key, scopes: always ? ['session', 'always'] : ['session'] };
  return offer;
}

/**
 * E3 + E11: an edited command is classed again, in its session's context. Null when it would have
 * been offered a rule; otherwise why it is risky — an allow of it then needs presence under
 * `--require-presence risky` (presence-gate.ts), whatever the original was.
 */
export function editedRisk(edited: string, ctx: OfferContext): ApprovalRisk | null {
  const c = classify({ tool: 'run', title: '', detail: '', command: edited }, ctx);
  return 'risk' in c ? { reason: c.risk } : null;
}
