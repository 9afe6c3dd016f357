// `npm test`: every check the project has, in stages. Within a stage the jobs are independent and
// run side by side (lint, typecheck and the build are each one single-threaded process, so two
// cores take them together in the time of the longest); the unit and e2e suites run alone, since
// each uses every core and a few of their tests measure latency under a known load.
import { spawn } from 'node:child_process';
import { missingPrereqs, prereqs } from './prereqs.ts';

type Job = { script: string; live?: boolean };
type Stage = Job[];

export const STAGES: Stage[] = [
  [{ script: 'lint' }, { script: 'typecheck' }, { script: 'build' }],
  [{ script: 'size' }],
  [{ script: 'test:unit', live: true }],
  [{ script: 'test:e2e', live: true }],
];

type Result = { script: string; code: number; ms: number; output: string };

function runJob(job: Job): Promise<Result> {
  const started = performance.now();
  const child = spawn('npm', ['run', '--silent', job.script], {
    stdio: job.live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  return new Promise((resolve) => {
    child.once('close', (code, signal) =>
      resolve({
        script: job.script,
        code: code ?? (signal ? 128 : 1),
        ms: performance.now() - started,
        output,
      }),
    );
  });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function main(): Promise<number> {
  const { missing, install } = missingPrereqs(prereqs());
  if (missing.length > 0) {
    process.stderr.write('npm test: missing system prerequisites:\n');
    for (const p of missing) process.stderr.write(`  - ${p.pkg}: ${p.why}\n`);
    process.stderr.write(`Install them with:\n  ${install}\n`);
    return 1;
  }
  const all = performance.now();
  const timings: Result[] = [];
  for (const stage of STAGES) {
    if (stage.length > 1) {
      process.stdout.write(`\n▶ ${stage.map((j) => j.script).join(' ∥ ')}\n`);
    } else process.stdout.write(`\n▶ ${stage[0]!.script}\n`);
    const results = await Promise.all(stage.map(runJob));
    for (const r of results) {
      if (r.output) process.stdout.write(`── ${r.script} ──\n${r.output}`);
      process.stdout.write(`${r.code === 0 ? '✓' : '✗'} ${r.script} ${seconds(r.ms)}\n`);
      timings.push(r);
    }
    const failed = results.filter((r) => r.code !== 0);
    if (failed.length > 0) {
      for (const r of failed)
        process.stderr.write(`✗ npm run ${r.script} failed (exit ${r.code})\n`);
      return 1;
    }
  }
  process.stdout.write('\nWhere the time went:\n');
  for (const r of timings) process.stdout.write(`  ${r.script.padEnd(10)} ${seconds(r.ms)}\n`);
  process.stdout.write(`  ${'total'.padEnd(10)} ${seconds(performance.now() - all)}\n`);
  return 0;
}

process.exitCode = await main();
