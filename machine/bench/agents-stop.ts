import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { MachineMessage } from '../../protocol/index.ts';
import { liveProcesses } from '../../testkit/process-group.ts';
import { until } from '../../testkit/until.ts';
import type { TestPhone } from '../test-support/test-phone.ts';
import { fmt, p50p95, pct, sorted } from './stats.ts';

// `npm run bench:agents`, figure 3 — stop → not running (E4: the phone's `session.interrupt`
// ends a running turn; within 2 s the session is no longer running, `turn.final` says
// `interrupted`, and the tool's processes are gone). Each stop is a new session whose first tool
// call is a long command, allowed from the phone; once the command's own process runs (seen in
// /proc), the phone sends `session.interrupt` and three clocks run from that moment, on the
// phone's side (process.hrtime: CLOCK_MONOTONIC, the clock of the machine's stamps too):
// (a) the `session.update` whose state is no longer running / awaiting_approval,
// (b) `turn.final{reason:'interrupted'}`, (c) no process of the command left in the session's
// folder (polled in /proc every 5 ms; zombies count as gone). (b) is split by the machine's
// stamps: until the machine handed `turn.final` to its relay link (the interrupt crossing the
// relay, the agent stopping, the machine), the frame in the link's send queue, and its socket
// write to the phone having opened it.

export const N_STOPS = 10;
/** E4's promise, what each stop is held against (a benchmark: reported, never asserted). */
export const STOP_PROMISE_MS = 2000;
/** One stop's three ends are awaited this long; past it the stop is reported as not ended. */
const STOP_BOUND_MS = 15_000;
const START_BOUND_MS = 60_000;

type Card = Extract<MachineMessage, { type: 'approval.request' }>;

/** The long command of a stop, as /proc shows it. */
export type LongCommand = {
  /** The program whose process is the command itself (not its shell): its argv[0]'s name. */
  exe: string;
  /** A piece of the command line of the command and of every wrapper of it (shells). */
  piece: string;
};

export type StopTarget = {
  phone: TestPhone;
  /** The session's folder: the command's processes work there. */
  root: string;
  agent: string;
  /** The prompt of stop `i` (its model reply scripted beforehand). */
  prompt(i: number): string;
  command: LongCommand;
  dispatch(phone: TestPhone, prompt: string, agent: string): Promise<string>;
  card(phone: TestPhone, sessionId: string, from: number): Promise<Card>;
  /** The machine's stamps of the first `turn.final` it sent after `afterNs` (bounded wait). */
  finalStamps(afterNs: bigint): Promise<{ handed: bigint; written: bigint }>;
};

/** Where (b) went, ms: see the head of this file. */
export type FinalSplit = { toMachine: number; link: number; toPhone: number };
/** One stop, ms from the phone sending `session.interrupt`; Infinity: not within the bound. */
export type Stop = { notRunning: number; final: number; gone: number; split?: FinalSplit };

const msOf = (a: bigint, b: bigint) => Number(b - a) / 1e6;

function argv(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return []; // gone meanwhile
  }
}

/** The live processes of the command (and its wrappers) in `root`. */
const commandProcesses = (root: string, c: LongCommand) =>
  liveProcesses({ cwd: root, cmdline: c.piece });

/** The command itself runs (not only the shell that is about to start it). */
const commandRuns = (root: string, c: LongCommand) =>
  commandProcesses(root, c).some((pid) => path.basename(argv(pid)[0] ?? '') === c.exe);

/** Ends what a stop that did not end left behind, so the next stop starts clean. */
function killLeftovers(root: string, c: LongCommand): number {
  const left = commandProcesses(root, c);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return left.length;
}

async function oneStop(t: StopTarget, i: number): Promise<Stop> {
  const { phone } = t;
  const before = phone.messages.length;
  const sessionId = await t.dispatch(phone, t.prompt(i), t.agent);
  const card = await t.card(phone, sessionId, before);
  phone.send({
    type: 'approval.respond',
    requestId: randomUUID(),
    approvalId: card.approvalId,
    decision: 'allow',
  });
  await until(() => commandRuns(t.root, t.command), `${t.agent}'s command ${i}`, START_BOUND_MS);

  const from = phone.messages.length;
  const sent = process.hrtime.bigint();
  let opened: bigint | undefined;
  const since = (p: Promise<unknown>) =>
    p.then(
      () => msOf(sent, process.hrtime.bigint()),
      (e: unknown) => {
        console.log(`${t.agent}: stop ${i}: ${String(e).slice(0, 300)}`);
        return Infinity;
      },
    );
  phone.send({ type: 'session.interrupt', requestId: randomUUID(), sessionId });
  const [notRunning, final, gone] = await Promise.all([
    since(
      phone.waitFor(
        (m) =>
          m.type === 'session.update' &&
          m.session.sessionId === sessionId &&
          m.session.state !== 'running' &&
          m.session.state !== 'awaiting_approval',
        STOP_BOUND_MS,
        from,
      ),
    ),
    since(
      phone
        .waitFor((m) => m.type === 'turn.final' && m.sessionId === sessionId, STOP_BOUND_MS, from)
        .then((m) => {
          opened = process.hrtime.bigint();
          if (m.type !== 'turn.final' || m.reason !== 'interrupted')
            throw new Error(`${t.agent}'s turn ${i} ended otherwise: ${JSON.stringify(m)}`);
        }),
    ),
    since(
      until(
        () => commandProcesses(t.root, t.command).length === 0,
        `${t.agent}'s command ${i} to end`,
        STOP_BOUND_MS,
      ),
    ),
  ]);
  if (gone === Infinity)
    console.log(`${t.agent}: stop ${i} left ${killLeftovers(t.root, t.command)} process(es)`);
  if (opened === undefined || final === Infinity) return { notRunning, final, gone };
  const { handed, written } = await t.finalStamps(sent);
  const split = {
    toMachine: msOf(sent, handed),
    link: msOf(handed, written),
    toPhone: msOf(written, opened),
  };
  return { notRunning, final, gone, split };
}

/** N_STOPS stops, one after the other, each in a new session. */
export async function stops(t: StopTarget): Promise<Stop[]> {
  const out: Stop[] = [];
  for (let i = 0; i < N_STOPS; i += 1) out.push(await oneStop(t, i));
  return out;
}

// ---- report ---------------------------------------------------------------------------------

const ENDS = [
  ['notRunning', 'not running (session.update)'],
  ['final', 'turn.final interrupted'],
  ['gone', "the command's processes gone"],
] as const;

const ms = (n: number) => (n === Infinity ? `> ${STOP_BOUND_MS}` : fmt(n));

/** Rows `| agent | end | stops | p50 | p95 | max | p50 / p95 vs mock |`, one per end. */
export function stopLines(label: string, xs: Stop[], baseline?: Stop[]): string[] {
  return ENDS.map(([key, end]) => {
    const s = sorted(xs.map((x) => x[key]));
    const b = baseline && sorted(baseline.map((x) => x[key]));
    const ratio = (q: number) => (b ? `×${(pct(s, q) / pct(b, q)).toFixed(2)}` : '—');
    return `| ${label} | ${end} | ${s.length} | ${ms(pct(s, 0.5))} | ${ms(pct(s, 0.95))} | ${ms(s.at(-1)!)} | ${ratio(0.5)} / ${ratio(0.95)} |`;
  });
}

/** Whether every stop met E4's 2 s for (a) not running and (c) processes gone. */
export function promiseLine(label: string, xs: Stop[]): string {
  const held = (key: 'notRunning' | 'gone') => {
    const worst = Math.max(...xs.map((x) => x[key]));
    const met = xs.filter((x) => x[key] <= STOP_PROMISE_MS).length;
    return `${met === xs.length ? 'every stop' : `${met} of ${xs.length}`} (worst ${ms(worst)} ms)`;
  };
  return `${label}: within ${STOP_PROMISE_MS} ms — not running: ${held('notRunning')}; processes gone: ${held('gone')}`;
}

/** `| agent | stops | → machine handed it | link queue | → phone opened |`, p50 / p95 each. */
export function splitLine(label: string, xs: Stop[]): string {
  const parts = xs.flatMap((x) => (x.split ? [x.split] : []));
  if (parts.length === 0) return `| ${label} | 0 | — | — | — |`;
  return `| ${label} | ${parts.length} | ${p50p95(parts.map((p) => p.toMachine))} | ${p50p95(parts.map((p) => p.link))} | ${p50p95(parts.map((p) => p.toPhone))} |`;
}
