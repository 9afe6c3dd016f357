import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { captureLog } from '../log.ts';
import { ensurePrivateDir } from '../links/state-dir.ts';
import { HOOK_PROGRAM } from '../hooks/claude-settings.ts';
import { startHookSocket } from '../hooks/hook-socket.ts';

// `npm run bench:hook` — what our Claude Code hook program (E10 desk sessions) adds to each
// event: its whole run, process start to exit, as Claude Code pays it. Baseline, in the same run:
// a bare `node -e ""` on the same Node. Two cases: no machine running (the socket is absent: the
// hook must end at once), and a machine answering a report event (UserPromptSubmit) over the
// socket. Medians of N_RUNS each, interleaved so load drift hits all three alike. A benchmark,
// not a test: nothing here asserts a time.

const N_RUNS = 30;

function timed(args: string[], stdin: string): Promise<number> {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const tmp = makeTmpDir('bench-hook-');
const stateDir = path.join(tmp.dir, 'state');
ensurePrivateDir(stateDir);
const socket = await startHookSocket({ stateDir, log: captureLog(), handle: async () => null });
if (socket === null) throw new Error('the hook socket did not start');
const event = JSON.stringify({
  hook_event_name: 'UserPromptSubmit',
  session_id: 'bench',
  cwd: tmp.dir,
  prompt: 'hello',
});
const runs = { baseline: [] as number[], noMachine: [] as number[], machine: [] as number[] };
try {
  for (let i = 0; i < N_RUNS; i += 1) {
    runs.baseline.push(await timed(['-e', ''], event));
    runs.noMachine.push(await timed([HOOK_PROGRAM, path.join(tmp.dir, 'absent.sock')], event));
    runs.machine.push(await timed([HOOK_PROGRAM, socket.path], event));
  }
} finally {
  await socket.close();
  tmp.cleanup();
}
const base = median(runs.baseline);
const line = (name: string, xs: number[]) =>
  `${name.padEnd(34)} median ${median(xs).toFixed(1)} ms  (${(median(xs) / base).toFixed(2)}× baseline)`;
process.stdout.write(
  [
    `hook program start→exit, ${N_RUNS} runs each, Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(2)}`,
    line('baseline: node -e ""', runs.baseline),
    line('hook, no machine running', runs.noMachine),
    line('hook, machine answers (report event)', runs.machine),
    '',
  ].join('\n'),
);
