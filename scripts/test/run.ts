// `npm test`: every check the project has, in stages (docs/quality.md "The test run"), after the
// system packages are checked and the agents' CLIs installed when needed (E10 packaging): first the
// one test that measures a latency under a known load (the push flood, H1), alone; then lint,
// typecheck and the build side by side (single-threaded each) and the size budget once the build
// is done; then the unit suite (two workers); then the e2e suite. Jobs of a stage run side by side
// and print their output whole when they end.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureAgents } from '../agents/state.ts';
import { missingPrereqs, prereqs } from './prereqs.ts';

/** `after`: a job of the same stage whose success this one needs before it starts. */
type Job = { name: string; command: readonly string[]; after?: string };
type Stage = readonly Job[];

const npm = (script: string): Job => ({
  name: script,
  command: ['npm', 'run', '--silent', script],
});
const vitest = (name: string, projects: readonly string[], extra: readonly string[] = []): Job => ({
  name,
  command: ['npx', 'vitest', 'run', ...projects.flatMap((p) => ['--project', p]), ...extra],
});

export const STAGES: readonly Stage[] = [
  [vitest('test:alone', ['alone'])],
  [npm('build'), npm('lint'), npm('typecheck'), { ...npm('size'), after: 'build' }],
  // Every project but the one that ran alone (a project added later is run without a change here).
  [vitest('test:unit', ['!alone'])],
  // After the unit suite, not beside it: side by side they loaded 2 cores to 8–10 and tests that
  // wait on real time failed without a defect in 2 of 3 runs, for no gain in total time (707 s
  // against 690 s in order) — docs/quality.md "The test run".
  [npm('test:e2e')],
];

/** How often a stage says which of its jobs are still running (its output comes at the end). */
const PROGRESS_EVERY_MS = 60_000;

type Result = { name: string; code: number; ms: number; output: string };

function runJob(job: Job): Promise<Result> {
  const started = performance.now();
  const [cmd, ...args] = job.command;
  const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  return new Promise((resolve) => {
    child.once('close', (code, signal) =>
      resolve({
        name: job.name,
        code: code ?? (signal ? 128 : 1),
        ms: performance.now() - started,
        output,
      }),
    );
  });
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Runs a stage's jobs together; each job's output is printed whole when it ends, not mixed. */
async function runStage(stage: Stage): Promise<Result[]> {
  const started = performance.now();
  process.stdout.write(`\n▶ ${stage.map((j) => j.name).join(' ∥ ')}\n`);
  const running = new Set(stage.map((j) => j.name));
  const progress = setInterval(() => {
    const t = seconds(performance.now() - started);
    process.stdout.write(`  … ${t}: still running ${[...running].join(', ')}\n`);
  }, PROGRESS_EVERY_MS);
  const done = new Map<string, Promise<Result>>();
  const start = async (job: Job): Promise<Result> => {
    const before = job.after === undefined ? undefined : await done.get(job.after);
    if (before !== undefined && before.code !== 0) {
      return { name: job.name, code: 1, ms: 0, output: `not run: ${before.name} failed\n` };
    }
    return runJob(job);
  };
  try {
    for (const job of stage) done.set(job.name, start(job));
    return await Promise.all(
      stage.map(async (job) => {
        const r = await done.get(job.name)!;
        running.delete(job.name);
        if (r.output) process.stdout.write(`── ${r.name} ──\n${r.output}`);
        process.stdout.write(`${r.code === 0 ? '✓' : '✗'} ${r.name} ${seconds(r.ms)}\n`);
        return r;
      }),
    );
  } finally {
    clearInterval(progress);
  }
}

async function main(): Promise<number> {
  const { missing, install } = missingPrereqs(prereqs());
  if (missing.length > 0) {
    process.stderr.write('npm test: missing system prerequisites:\n');
    for (const p of missing) process.stderr.write(`  - ${p.pkg}: ${p.why}\n`);
    process.stderr.write(`Install them with:\n  ${install}\n`);
    return 1;
  }
  // E10 packaging: the agent tests need the real CLIs, which the root `npm ci` leaves out.
  if (!(await ensureAgents(path.resolve(import.meta.dirname, '../../agents'), 'npm test')))
    return 1;
  const all = performance.now();
  const timings: Result[] = [];
  for (const stage of STAGES) {
    const results = await runStage(stage);
    timings.push(...results);
    const failed = results.filter((r) => r.code !== 0);
    if (failed.length > 0) {
      for (const r of failed) process.stderr.write(`✗ ${r.name} failed (exit ${r.code})\n`);
      return 1;
    }
  }
  process.stdout.write('\nWhere the time went (jobs of a stage overlap):\n');
  for (const r of timings) process.stdout.write(`  ${r.name.padEnd(11)} ${seconds(r.ms)}\n`);
  process.stdout.write(`  ${'total'.padEnd(11)} ${seconds(performance.now() - all)}\n`);
  return 0;
}

process.exitCode = await main();
