import path from 'node:path';
import { isInside } from '../dispatch/cwd-guard.ts';

// E2: the short list of read-only commands a remembered approval may cover with any arguments —
// every other command is keyed by its exact command line (approval-offer.ts). A command here is
// keyed broadly (`run: ls *`, `run: git diff *`) only when it is named bare (no path: `./ls` is
// whatever the agent wrote there), none of its arguments is one that writes, deletes or runs
// another program, and none names a path outside the session's folder; otherwise it falls back to
// its exact key. The reason for each entry is in docs/protocol.md (E2, "Keys").

/** Why a broad key is refused: the argument (or option) that disqualifies the command. */
type ArgCheck = (args: readonly string[]) => boolean;

/** Any long option that is, or abbreviates, one of `names` (getopt_long and git accept prefixes). */
const longOption =
  (...names: string[]): ArgCheck =>
  (args) =>
    args.some((a) => {
      if (!a.startsWith('--') || a.length < 3) return false;
      const given = a.split('=')[0]!;
      return names.some((n) => n.startsWith(given) || given.startsWith(n));
    });

const none: ArgCheck = () => false;

/** `find` actions that delete, run a program, or write a file (GNU findutils). */
export const FIND_DELETES = ['-delete'];
export const FIND_RUNS = ['-exec', '-execdir', '-ok', '-okdir'];
export const FIND_WRITES = ['-fprint', '-fprint0', '-fprintf', '-fls'];
const findWrites: ArgCheck = (args) =>
  args.some((a) => [...FIND_DELETES, ...FIND_RUNS, ...FIND_WRITES].includes(a));

/**
 * `git` subcommands that only read the repository. They must follow `git` directly: a global
 * option before them (`-c`, `-C`, `--git-dir`, `--exec-path`…) can make git run a program or read
 * another repository. `--output` writes a file, `--ext-diff` runs the configured diff program.
 */
const GIT_READS = ['status', 'diff', 'log', 'show'];
const gitWrites = longOption('--output', '--ext-diff');

/** Program → what disqualifies its arguments. Each entry is argued in docs/protocol.md (E2). */
export const READ_ONLY_PROGRAMS: Readonly<Record<string, ArgCheck>> = {
  ls: none,
  pwd: none,
  cat: none,
  head: none,
  tail: none,
  wc: none,
  grep: none,
  find: findWrites,
};

/**
 * The paths an argument may name: the word itself, the value of `--opt=value`, the value glued to
 * a short option (`-f/etc/x`). Only those that could leave the folder (absolute, or with `..`).
 */
function pathsIn(arg: string): string[] {
  const candidates = [arg];
  if (arg.startsWith('--') && arg.includes('=')) candidates.push(arg.slice(arg.indexOf('=') + 1));
  else if (/^-[^-]/.test(arg)) candidates.push(arg.slice(2));
  return candidates.filter((c) => c.startsWith('/') || c.split('/').includes('..'));
}

const leavesFolder = (args: readonly string[], cwd: string): boolean =>
  args.some((a) => pathsIn(a).some((p) => !isInside(path.resolve(cwd, p), cwd)));

/**
 * The broad key for `words` (a simple command already split), or null when the command is not on
 * the list or its arguments disqualify it (then it is keyed exactly, or not at all).
 */
export function broadKey(words: readonly string[], cwd: string): string | null {
  const [program = '', ...args] = words;
  if (program.includes('/') || leavesFolder(args, cwd)) return null;
  if (program === 'git') {
    const [sub = '', ...rest] = args;
    if (!GIT_READS.includes(sub) || gitWrites(rest)) return null;
    return `run: git ${sub} *`;
  }
  const check = READ_ONLY_PROGRAMS[program];
  if (check === undefined || check(args)) return null;
  return `run: ${program} *`;
}

export const READ_ONLY_GIT_SUBCOMMANDS: readonly string[] = GIT_READS;
