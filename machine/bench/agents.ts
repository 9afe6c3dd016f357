import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import type { MachineMessage } from '../../protocol/index.ts';
import { bundled } from '../../testkit/bundles.ts';
import { startProcess, whenReady, type TestProcess } from '../../testkit/process.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { until } from '../../testkit/until.ts';
import { CODEX_TEST_ARGS, makeCodexHome } from '../test-support/codex-home.ts';
import {
  claudeTestEnv,
  startFakeAnthropic,
  type FakeAnthropic,
} from '../test-support/fake-anthropic.ts';
import { geminiTestEnv, startFakeGemini, type FakeGemini } from '../test-support/fake-gemini.ts';
import { startFakeResponses, type FakeResponses } from '../test-support/fake-responses.ts';
import { makeTestPhone, type TestPhone } from '../test-support/test-phone.ts';
import {
  N_STOPS,
  promiseLine,
  splitLine as stopSplitLine,
  stopLines,
  stops,
  type LongCommand,
  type StopTarget,
} from './agents-stop.ts';
import { fmt, p50p95, pct, sorted } from './stats.ts';

// `npm run bench:agents` — the real agents (Claude Code, Codex, Gemini CLI: their real binaries against the
// fake model servers the tests use) behind a machine process, a real relay on loopback and a test
// phone. Three figures, each against a baseline measured in the same run (docs/quality.md "Real
// agents"):
// 1. ask → card: from the moment the agent's adapter hands an ask to the machine (`ctx.approve`,
//    stamped by a wrapper in agents-machine.ts — no production code is changed) to the moment the
//    phone has opened the `approval.request`; the agent's own time (model, CLI) is outside it.
//    Baseline: the scripted agent's ask → card in the same machine. N_ASKS per agent.
// 2. memory: RSS of the machine process and, apart, of its agent child processes, with 0, 1 and
//    5 live sessions (each waiting at an approval, so its agent process is alive), as ratios to
//    the idle machine.
// 3. stop → not running (E4; agents-stop.ts): N_STOPS stops per agent, each of a long command
//    allowed from the phone and running, timed on the phone from its `session.interrupt` to the
//    session no longer running, to `turn.final` interrupted, and to the command's processes gone.
//    Baseline: the scripted agent's `run: sleep 30` stopped the same way on the same machine.

const N_ASKS = 30;
const LIVE_COUNTS = [1, 5] as const;
const CARD_TIMEOUT_MS = 60_000;
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 20_000;

const AGENTS = ['claude', 'codex', 'gemini'] as const;
type Agent = (typeof AGENTS)[number];
type Card = Extract<MachineMessage, { type: 'approval.request' }>;

const cleanups: Array<() => Promise<unknown> | void> = [];
const rid = () => randomUUID();

// ---- /proc -------------------------------------------------------------------------------

function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // gone meanwhile
  }
}

/** Every live process below `pid` (children, grandchildren…), whatever their process group. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z') parent.set(Number(p), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const [child, pp] of parent) {
      if (pp !== at) continue;
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

// ---- the machine process and its phone ------------------------------------------------------

type BenchMachine = { p: TestProcess; phone: TestPhone; root: string; stop(): Promise<void> };

/** The relay of relay/main.ts with its bench stamps (relay/bench-stamps.ts), on loopback. */
type BenchRelay = { url: string; p: TestProcess };

async function startRelay(dataDir: string): Promise<BenchRelay> {
  const bundle = await bundled('relay/bench-stamps.ts');
  const args = ['--port', '0', '--data-dir', dataDir, '--log-level', 'warn'];
  const p = startProcess('bench-relay', process.execPath, [bundle, ...args]);
  const m = await whenReady(p, /relay listening on (ws:\/\/\S+)/, START_TIMEOUT_MS);
  return { url: m[1]!.replace(/\/$/, ''), p };
}

async function startMachine(
  relay: BenchRelay,
  agent: Agent,
  env: Record<string, string>,
): Promise<BenchMachine> {
  const bundle = await bundled('machine/bench/agents-machine.ts');
  const tmp = makeTmpDir('bench-agents-');
  const root = path.join(tmp.dir, 'root');
  mkdirSync(root);
  const config = {
    relay: relay.url,
    root,
    stateDir: path.join(tmp.dir, 'state'),
    agent,
    env,
    ...(agent === 'codex' ? { codexArgs: CODEX_TEST_ARGS } : {}),
  };
  const p = startProcess(`bench-machine-${agent}`, process.execPath, [bundle], {
    env: { BENCH_AGENTS_CONFIG: JSON.stringify(config) },
  });
  const code = (await whenReady(p, /^ready (\S+)/, START_TIMEOUT_MS))[1]!;
  const phone = await makeTestPhone({ relayUrl: relay.url, pairingCode: code });
  await phone.waitFor((m) => m.type === 'machine.status', START_TIMEOUT_MS);
  return {
    p,
    phone,
    root,
    async stop() {
      await phone.close();
      const below = descendants(p.pid);
      await p.stop({ signal: 'SIGTERM', graceMs: STOP_GRACE_MS, killLeftovers: true });
      // The machine's close ends its agents; whatever of them outlived it (their own groups) goes.
      for (const pid of below) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      tmp.cleanup();
    },
  };
}

async function dispatch(phone: TestPhone, prompt: string, agent: string): Promise<string> {
  const requestId = rid();
  const from = phone.messages.length;
  phone.send({ type: 'dispatch.request', requestId, prompt, worktree: false, agent });
  const r = await phone.waitFor(
    (m) => m.type === 'dispatch.result' && m.requestId === requestId,
    CARD_TIMEOUT_MS,
    from,
  );
  if (r.type !== 'dispatch.result' || !r.ok || r.sessionId === undefined)
    throw new Error(`dispatch ${agent} refused: ${JSON.stringify(r)}`);
  return r.sessionId;
}

const cardOf = (phone: TestPhone, sessionId: string, from: number) =>
  phone.waitFor(
    (m): m is Card => m.type === 'approval.request' && m.sessionId === sessionId,
    CARD_TIMEOUT_MS,
    from,
  );

/** The machine-side ask stamps printed so far (ns, CLOCK_MONOTONIC). */
const asks = (p: TestProcess): bigint[] =>
  p.lines.filter((l) => l.startsWith('ask ')).map((l) => BigInt(l.slice(4)));

/** `out <type> <ns> <fp>`: each sealed message handed to the relay link, in order. */
type Out = { type: string; ns: bigint; fp: string };
const outs = (p: TestProcess): Out[] =>
  p.lines
    .filter((l) => l.startsWith('out '))
    .map((l) => {
      const [, type, ns, fp] = l.split(' ');
      return { type: type!, ns: BigInt(ns!), fp: fp! };
    });
const cardsOut = (p: TestProcess) => outs(p).filter((o) => o.type === 'approval.request');

/** The machine's stamps of its first `turn.final` after `afterNs`: handed to the link, written. */
async function finalStamps(p: TestProcess, afterNs: bigint) {
  const find = () => {
    const out = outs(p).find((o) => o.type === 'turn.final' && o.ns > afterNs);
    const written = out && byFingerprint(p, 'wire').get(out.fp);
    return out && written !== undefined ? { handed: out.ns, written } : undefined;
  };
  await until(() => find() !== undefined, "the machine's stamps of turn.final", CARD_TIMEOUT_MS);
  return find()!;
}

/** `<what> <ns> <fp>` lines: the first stamp of each fingerprint. */
function byFingerprint(p: TestProcess, what: string): Map<string, bigint> {
  const m = new Map<string, bigint>();
  for (const l of p.lines) {
    if (!l.startsWith(`${what} `)) continue;
    const [, ns, fp] = l.split(' ');
    if (!m.has(fp!)) m.set(fp!, BigInt(ns!));
  }
  return m;
}

/**
 * One ask, in ms: the whole leg and its parts — the machine up to the sealed frame handed to
 * its relay link (`machine`); the frame waiting in the link's send queue (`link`); the socket
 * write to the relay's read (`toRelay`: both kernels, loopback, the relay's event loop); the
 * relay's own work (`relay`: read to forward); its forward to the phone having opened it
 * (`toPhone`). `wire` is everything after the machine (link + toRelay + relay + toPhone).
 * `ahead`: frames the link wrote to its socket while the card waited in its queue.
 */
type Leg = {
  total: number;
  machine: number;
  wire: number;
  link: number;
  toRelay: number;
  relay: number;
  toPhone: number;
  ahead: number;
};

// ---- 1. ask → card --------------------------------------------------------------------------

/** One session asking `N_ASKS` times in one turn; each card is allowed as soon as it is timed. */
async function askToCard(
  relay: BenchRelay,
  m: BenchMachine,
  agent: string,
  prompt: string,
): Promise<Leg[]> {
  const { phone, p } = m;
  // The phone's event loop is this process's: its stalls land in the relay + phone part.
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const base = asks(p).length;
  const sentBase = cardsOut(p).length;
  const outBase = outs(p).length;
  const sessionId = await dispatch(phone, prompt, agent);
  const ms: Leg[] = [];
  let from = 0;
  for (let i = 0; i < N_ASKS; i += 1) {
    const card = await cardOf(phone, sessionId, from);
    const opened = process.hrtime.bigint();
    from = phone.messages.indexOf(card) + 1;
    await until(
      () => asks(p).length > base + i && cardsOut(p).length > sentBase + i,
      `the machine's stamps of ask ${i}`,
      CARD_TIMEOUT_MS,
    );
    const asked = asks(p)[base + i]!;
    const out = cardsOut(p)[sentBase + i]!;
    await until(
      () => byFingerprint(relay.p, 'rout').has(out.fp),
      `the relay's stamps of ask ${i}`,
      CARD_TIMEOUT_MS,
    );
    const wired = byFingerprint(p, 'wire');
    const written = wired.get(out.fp)!;
    const rin = byFingerprint(relay.p, 'rin').get(out.fp)!;
    const rout = byFingerprint(relay.p, 'rout').get(out.fp)!;
    const msOf = (a: bigint, b: bigint) => Number(b - a) / 1e6;
    let ahead = 0;
    for (const ns of wired.values()) if (ns > out.ns && ns < written) ahead += 1;
    ms.push({
      total: msOf(asked, opened),
      machine: msOf(asked, out.ns),
      wire: msOf(out.ns, opened),
      link: msOf(out.ns, written),
      toRelay: msOf(written, rin),
      relay: msOf(rin, rout),
      toPhone: msOf(rout, opened),
      ahead,
    });
    phone.send({
      type: 'approval.respond',
      requestId: rid(),
      approvalId: card.approvalId,
      decision: 'allow',
    });
  }
  await phone.waitFor(
    (m) => m.type === 'turn.final' && m.sessionId === sessionId,
    CARD_TIMEOUT_MS,
    from,
  );
  loop.disable();
  // What the machine sent during the turn, by type: what the cards share the link with.
  const types = new Map<string, number>();
  for (const o of outs(p).slice(outBase)) types.set(o.type, (types.get(o.type) ?? 0) + 1);
  console.log(
    `${agent}: the machine sent ${[...types].map(([t, n]) => `${n} ${t}`).join(', ')} in the turn`,
  );
  console.log(
    `${agent}: the bench's (phone's) event-loop delay p99 ${fmt(loop.percentile(99) / 1e6)} ms, max ${fmt(loop.max / 1e6)} ms`,
  );
  return ms;
}

const mockScript = () =>
  Array.from({ length: N_ASKS }, (_, i) => `run: echo ${i} > mock-${i}.txt`).join('\n');

// ---- 2. memory ------------------------------------------------------------------------------

type Sample = { live: number; machineKb: number; agentsKb: number; agentProcesses: number };

function sample(m: BenchMachine, live: number): Sample {
  const below = descendants(m.p.pid);
  return {
    live,
    machineKb: rssKb(m.p.pid),
    agentsKb: below.reduce((sum, pid) => sum + rssKb(pid), 0),
    agentProcesses: below.length,
  };
}

/** Idle, then 1 and 5 sessions each waiting at its first card (its agent process alive). */
async function memory(m: BenchMachine, agent: Agent, prompt: (k: number) => string) {
  const samples = [sample(m, 0)];
  let live = 0;
  for (const target of LIVE_COUNTS) {
    const started: Array<Promise<Card>> = [];
    for (; live < target; live += 1) {
      const sessionId = await dispatch(m.phone, prompt(live), agent);
      started.push(cardOf(m.phone, sessionId, 0));
    }
    await Promise.all(started);
    samples.push(sample(m, live));
  }
  return samples;
}

// ---- 3. stop → not running (the stops themselves: agents-stop.ts) ---------------------------

/** The long command of a real agent's stop (as the E4 tests run it). */
const LONG_COMMAND = 'node -e "setTimeout(()=>{},30000)"';
const LONG: LongCommand = { exe: 'node', piece: 'setTimeout(()=>{},30000)' };
/** The scripted agent's `run: sleep 30`: its shell, or `sleep` itself when the shell execs it. */
const MOCK_LONG: LongCommand = { exe: 'sleep', piece: 'sleep' };
const stopPrompt: StopTarget['prompt'] = (i) => `STOP-${i}- wait for a while`;

/** Each stop's model reply: the long command first, a text after (never reached: stopped). */
function scriptStops(agent: Agent, fakes: Fakes) {
  const { anthropic, responses, gemini } = fakes;
  if (agent === 'gemini') {
    for (let i = 0; i < N_STOPS; i += 1)
      gemini.script(`STOP-${i}-`, [
        { call: 'run_shell_command', args: { command: LONG_COMMAND, description: 'wait' } },
        { text: 'Picking up after the stop.' },
      ]);
    return;
  }
  if (agent === 'claude') {
    for (let i = 0; i < N_STOPS; i += 1)
      anthropic.script(`STOP-${i}-`, [
        { tool: 'Bash', input: { command: LONG_COMMAND, description: 'wait' } },
        { text: 'Picking up after the stop.' },
      ]);
    return;
  }
  // A new thread's first request carries no tool output: the command; anything later, a text.
  responses.respond = (req) =>
    req.raw.includes('function_call_output')
      ? { kind: 'text', text: 'Picking up after the stop.' }
      : {
          kind: 'call',
          name: 'exec_command',
          args: {
            cmd: LONG_COMMAND,
            sandbox_permissions: 'require_escalated',
            justification: 'bench',
          },
        };
}

/** The fake model servers, one per agent (each agent's real binary talks to its own). */
type Fakes = { anthropic: FakeAnthropic; responses: FakeResponses; gemini: FakeGemini };

/** `--agents claude,gemini`: which real agents to measure (all by default). */
function agentsToRun(argv: readonly string[]): Agent[] {
  const i = argv.indexOf('--agents');
  if (i < 0) return [...AGENTS];
  const named = (argv[i + 1] ?? '').split(',').filter((a) => a !== '');
  const unknown = named.filter((a) => !(AGENTS as readonly string[]).includes(a));
  if (named.length === 0 || unknown.length > 0)
    throw new Error(`--agents takes some of ${AGENTS.join(',')}; got "${argv[i + 1] ?? ''}"`);
  return named as Agent[];
}

// ---- report ---------------------------------------------------------------------------------

const mb = (kb: number) => (kb / 1024).toFixed(0);

function latencyLine(label: string, legs: Leg[], baseline?: Leg[]) {
  const total = sorted(legs.map((l) => l.total));
  const ratio = (q: number) =>
    baseline
      ? `×${(pct(total, q) / pct(sorted(baseline.map((l) => l.total)), q)).toFixed(2)}`
      : '—';
  return [
    `| ${label} | ${total.length} | ${fmt(pct(total, 0.5))} | ${fmt(pct(total, 0.95))}`,
    `${fmt(total.at(-1)!)} | ${p50p95(legs.map((l) => l.machine))}`,
    `${p50p95(legs.map((l) => l.wire))} | ${ratio(0.5)} / ${ratio(0.95)} |`,
  ].join(' | ');
}

/** Where the time after the machine went (p50 / p95 of each part, ms; frames ahead p50 / max). */
function splitLine(label: string, legs: Leg[]) {
  const ahead = sorted(legs.map((l) => l.ahead));
  return [
    `| ${label} | ${p50p95(legs.map((l) => l.link))} | ${fmt(pct(ahead, 0.5))} / ${ahead.at(-1)}`,
    `${p50p95(legs.map((l) => l.toRelay))} | ${p50p95(legs.map((l) => l.relay))}`,
    `${p50p95(legs.map((l) => l.toPhone))} |`,
  ].join(' | ');
}

function memoryLines(agent: Agent, samples: Sample[]) {
  const idle = samples[0]!.machineKb;
  return samples.map(
    (x) =>
      `| ${agent} | ${x.live} | ${mb(x.machineKb)} | ×${(x.machineKb / idle).toFixed(2)} | ${mb(x.agentsKb)} (${x.agentProcesses} processes) | ${x.live > 0 ? mb(x.agentsKb / x.live) : '—'} | ×${(x.agentsKb / idle).toFixed(2)} |`,
  );
}

// ---- the run --------------------------------------------------------------------------------

async function main() {
  const load0 = os.loadavg();
  const startedAt = Date.now();
  const relayDir = makeTmpDir('bench-agents-relay-');
  cleanups.push(relayDir.cleanup);
  const relay = await startRelay(relayDir.dir);
  cleanups.push(() => relay.p.stop({ graceMs: STOP_GRACE_MS, killLeftovers: true }));
  const anthropic: FakeAnthropic = await startFakeAnthropic();
  cleanups.push(() => anthropic.close());
  const responses: FakeResponses = await startFakeResponses();
  cleanups.push(() => responses.close());
  const claudeHome = makeTmpDir('bench-claude-home-');
  cleanups.push(claudeHome.cleanup);
  mkdirSync(path.join(claudeHome.dir, '.claude'));
  const claudeEnv = {
    PATH: process.env.PATH ?? '',
    ...claudeTestEnv(claudeHome.dir, anthropic.url),
  };
  const codexHome = makeCodexHome(responses);
  cleanups.push(codexHome.cleanup);
  const codexEnv = Object.fromEntries(
    Object.entries(codexHome.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const gemini: FakeGemini = await startFakeGemini();
  cleanups.push(() => gemini.close());
  const geminiHome = makeTmpDir('bench-gemini-home-');
  cleanups.push(geminiHome.cleanup);
  const geminiEnv = { PATH: process.env.PATH ?? '', ...geminiTestEnv(geminiHome.dir, gemini.url) };
  const envOf = { claude: claudeEnv, codex: codexEnv, gemini: geminiEnv };
  const fakes: Fakes = { anthropic, responses, gemini };

  const latency: string[] = [];
  const split: string[] = [];
  const mem: string[] = [];
  const stopped: string[] = [];
  const promises: string[] = [];
  const finals: string[] = [];
  for (const agent of agentsToRun(process.argv.slice(2))) {
    // Memory first, on a fresh machine, so no earlier session's state is counted.
    if (agent === 'codex')
      responses.respond = () => ({
        kind: 'call',
        name: 'exec_command',
        args: {
          cmd: 'touch mem.txt',
          sandbox_permissions: 'require_escalated',
          justification: 'bench',
        },
      });
    for (let k = 0; k < Math.max(...LIVE_COUNTS); k += 1) {
      anthropic.script(`MEM-${k}-`, [
        { tool: 'Bash', input: { command: `echo ${k} > mem-${k}.txt`, description: 'bench' } },
      ]);
      gemini.script(`MEM-${k}-`, [
        {
          call: 'run_shell_command',
          args: { command: `echo ${k} > mem-${k}.txt`, description: 'bench' },
        },
      ]);
    }
    const m1 = await startMachine(relay, agent, envOf[agent]);
    try {
      mem.push(...memoryLines(agent, await memory(m1, agent, (k) => `MEM-${k}- write a file`)));
    } finally {
      await m1.stop();
    }

    const m2 = await startMachine(relay, agent, envOf[agent]);
    try {
      const baseline = await askToCard(relay, m2, 'mock', mockScript());
      anthropic.script('LAT-CLAUDE', [
        ...Array.from({ length: N_ASKS }, (_, i) => ({
          tool: 'Bash',
          input: { command: `echo ${i} > claude-${i}.txt`, description: `Write ${i}` },
        })),
        { text: 'done' },
      ]);
      gemini.script('LAT-CLAUDE', [
        ...Array.from({ length: N_ASKS }, (_, i) => ({
          call: 'run_shell_command',
          args: { command: `echo ${i} > gemini-${i}.txt`, description: `Write ${i}` },
        })),
        { text: 'done' },
      ]);
      let n = 0;
      responses.respond = () =>
        n < N_ASKS
          ? {
              kind: 'call',
              name: 'exec_command',
              args: {
                cmd: `touch codex-${n++}.txt`,
                sandbox_permissions: 'require_escalated',
                justification: 'bench',
              },
            }
          : { kind: 'text', text: 'done' };
      const real = await askToCard(relay, m2, agent, 'LAT-CLAUDE write the files');
      latency.push(latencyLine(`mock (baseline, ${agent}'s machine)`, baseline));
      latency.push(latencyLine(agent, real, baseline));
      split.push(splitLine(`mock (baseline, ${agent}'s machine)`, baseline));
      split.push(splitLine(agent, real));

      // 3. stop → not running: the mock's stops just before the agent's, on the same machine.
      const target = {
        phone: m2.phone,
        root: m2.root,
        dispatch,
        card: cardOf,
        finalStamps: (afterNs: bigint) => finalStamps(m2.p, afterNs),
      };
      const mockStops = await stops({
        ...target,
        agent: 'mock',
        prompt: () => 'run: sleep 30',
        command: MOCK_LONG,
      });
      scriptStops(agent, fakes);
      const realStops = await stops({ ...target, agent, prompt: stopPrompt, command: LONG });
      const mockLabel = `mock (baseline, ${agent}'s machine)`;
      stopped.push(...stopLines(mockLabel, mockStops), ...stopLines(agent, realStops, mockStops));
      promises.push(promiseLine(mockLabel, mockStops), promiseLine(agent, realStops));
      finals.push(stopSplitLine(mockLabel, mockStops), stopSplitLine(agent, realStops));
    } finally {
      await m2.stop();
    }
  }

  const load1 = os.loadavg();
  console.log(`bench:agents — ${new Date().toISOString()}, ${os.cpus().length} cores`);
  console.log(
    `load average at start ${load0.map((x) => x.toFixed(2)).join(' ')}, at end ${load1.map((x) => x.toFixed(2)).join(' ')}; ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
  );
  table(
    'ask → card (ms: the adapter handing the ask to the machine → the phone opened the card)',
    [
      'agent',
      'asks',
      'p50',
      'p95',
      'max',
      'machine p50 / p95',
      'relay + phone p50 / p95',
      'p50 / p95 vs mock',
    ],
    latency,
  );
  table(
    'after the machine (ms, p50 / p95): in the link queue (and frames written ahead of the card, p50 / max), socket → relay read, relay read → forward, forward → phone opened',
    ['agent', 'link queue', 'frames ahead', '→ relay', 'relay', '→ phone'],
    split,
  );
  table(
    'memory (RSS, MB; ratios to the idle machine process of the same agent)',
    [
      'agent',
      'live sessions',
      'machine',
      'machine / idle',
      'agent processes',
      'per session',
      'agents / idle machine',
    ],
    mem,
  );
  table(
    `stop → not running (ms from the phone sending session.interrupt while the allowed command runs; ${N_STOPS} stops each, a new session each)`,
    ['agent', 'until', 'stops', 'p50', 'p95', 'max', 'p50 / p95 vs mock'],
    stopped,
  );
  table(
    "turn.final after the stop, where the time went (ms, p50 / p95): the phone's interrupt → the machine handed turn.final to its link (relay in, the agent stopping, the machine), in the link's send queue, socket write → phone opened",
    ['agent', 'stops', '→ machine handed it', 'link queue', '→ phone opened'],
    finals,
  );
  console.log('');
  for (const l of promises) console.log(l);
}

try {
  await main();
} finally {
  for (const c of cleanups.splice(0).reverse()) await c();
}

/** One Markdown table of the report, under its title. */
function table(title: string, columns: readonly string[], rows: readonly string[]): void {
  console.log(`\n${title}`);
  console.log(`| ${columns.join(' | ')} |`);
  console.log(`|${columns.map(() => '---|').join('')}`);
  for (const row of rows) console.log(row);
}
