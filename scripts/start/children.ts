import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

// The demo's parts as child processes, each the leader of its own process group, so a stop can
// signal the whole group (tsx and its node, a shell and what it started) and wait until every
// member is gone. Orphans are not reaped on every machine: a zombie (state Z) counts as gone.

export const REPO = path.resolve(import.meta.dirname, '../..');
/** `node --import tsx <file>`: one process per part. The tsx CLI wrapper would relay signals to
 *  its child and SIGKILL it when the child is slow (30 ms) to acknowledge one, cutting a graceful
 *  shutdown short on a busy machine. */
export const tsNode = (file: string, ...args: string[]): [string, string[]] => [
  process.execPath,
  ['--import', 'tsx', file, ...args],
];
export const STOP_GRACE_MS = 10_000;
const POLL_MS = 50;

export type Part = {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null: killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Resolves when a line matching `re` appears on stdout or stderr (bounded). */
  waitForLine(re: RegExp, what: string, timeoutMs: number): Promise<RegExpExecArray>;
};

type Options = {
  env?: NodeJS.ProcessEnv;
  /** stdout passed through unchanged (the machine's QR code must not be prefixed). */
  rawStdout?: boolean;
  /** Keep stdin open for the machine's desk. */
  stdin?: boolean;
  /** Lines not shown (still seen by waitForLine): a RegExp, or any `test`. */
  quiet?: { test(line: string): boolean };
  /** Where shown lines go (default: stdout); `npm start` prints through its desk terminal. */
  print?: (line: string) => void;
};

export function startPart(
  name: string,
  [command, args]: [string, string[]],
  o: Options = {},
): Part {
  const child = spawn(command, args, {
    cwd: REPO,
    env: { ...process.env, ...o.env },
    detached: true,
    stdio: [o.stdin === true ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  const seen: string[] = [];
  const waiters = new Set<{ re: RegExp; resolve: (m: RegExpExecArray) => void }>();
  const onLine = (line: string) => {
    seen.push(line);
    if (seen.length > 400) seen.shift();
    for (const w of [...waiters]) {
      const m = w.re.exec(line);
      if (m !== null) {
        waiters.delete(w);
        w.resolve(m);
      }
    }
  };
  for (const [stream, raw] of [
    [child.stdout!, o.rawStdout === true],
    [child.stderr!, false],
  ] as const) {
    createInterface({ input: stream }).on('line', (line) => {
      onLine(line);
      if (o.quiet?.test(line) === true) return;
      const shown = raw ? line : `[${name}] ${line}`;
      if (o.print !== undefined) o.print(shown);
      else process.stdout.write(`${shown}\n`);
    });
  }
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(1));
  });
  return {
    name,
    pid: child.pid ?? -1,
    child,
    exited,
    waitForLine(re, what, timeoutMs) {
      for (const line of seen) {
        const m = re.exec(line);
        if (m !== null) return Promise.resolve(m);
      }
      return new Promise((resolve, reject) => {
        const w = { re, resolve: (m: RegExpExecArray) => (clearTimeout(t), resolve(m)) };
        const t = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`${name}: timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        waiters.add(w);
        void exited.then((code) => {
          if (!waiters.has(w)) return;
          waiters.delete(w);
          clearTimeout(t);
          reject(
            new Error(`${name} exited (${code}) before ${what}:\n${seen.slice(-15).join('\n')}`),
          );
        });
      });
    },
  };
}

/** Live (non-zombie) members of process group `pgid`, read from /proc. */
export function liveGroupMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] = state, fields[2] = pgrp
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') live.push(Number(entry));
  }
  return live;
}

const signalGroup = (pgid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is already gone
  }
};

async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (liveGroupMembers(pgid).length > 0) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/** SIGTERM each group, wait; what is still alive after the grace gets SIGKILL; wait again. */
export async function stopParts(parts: readonly Part[], graceMs = STOP_GRACE_MS): Promise<void> {
  for (const p of parts) signalGroup(p.pid, 'SIGTERM');
  await Promise.all(
    parts.map(async (p) => {
      if (await groupGone(p.pid, graceMs)) return;
      process.stdout.write(`[start] ${p.name} did not stop within ${graceMs} ms: killing it\n`);
      signalGroup(p.pid, 'SIGKILL');
      await groupGone(p.pid, graceMs);
    }),
  );
}
