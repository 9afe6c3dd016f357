import { RISK_REASONS, isMember, type ApprovalRequest } from '../../protocol/index.ts';

// E11 on the card: the command itself in the title, and the risk reason before any button.

/**
 * Tools whose request is one command line (the mock's `run`, Claude's `Bash`, Codex's exec, and
 * an ACP agent's tool kind `execute`, E10).
 */
const COMMAND_TOOLS = new Set(['run', 'Bash', 'exec_command', 'shell', 'local_shell', 'execute']);

/** The command an approval runs: the editable value, else the detail's first line; or null. */
export function commandOf(a: Pick<ApprovalRequest, 'tool' | 'title' | 'detail' | 'editable'>) {
  const isCommand = a.tool !== undefined ? COMMAND_TOOLS.has(a.tool) : /^run\b/i.test(a.title);
  if (!isCommand) return null;
  const line = (a.editable?.value ?? a.detail).split('\n')[0]?.trim() ?? '';
  return line === '' ? null : line;
}

/**
 * What the card's title says: "Run `<command>`" when the machine's title does not name the
 * command already ("Run a command" said nothing the detail did not), else the machine's title.
 */
export function headingOf(
  a: Pick<ApprovalRequest, 'tool' | 'title' | 'detail' | 'editable'>,
): { command: string } | { title: string } {
  const command = commandOf(a);
  return command !== null && !a.title.includes(command) ? { command } : { title: a.title };
}

/** E11: the strings key of a risk reason; an unknown code is just "risky". */
export const riskKey = (reason: string) =>
  `risk.${isMember(RISK_REASONS, reason) ? reason : 'other'}` as const;

/**
 * E11.4: a closed card's title in words, built as its open card's was: "Run <command>" from the
 * command the card named, else the machine's title. `run` is the translated "Run {command}".
 */
export const closedTitle = (
  note: { title: string; command?: string },
  run: (command: string) => string,
): string => (note.command !== undefined ? run(note.command) : note.title);
