// `npm run machine -- --relay ws://127.0.0.1:8787 …` (see --help): the mock machine in a terminal.
import { agentsFromCli } from './agent/from-cli.ts';
import { mergeDeclared, readAgentsFile } from './agent/acp/declare.ts';
import { DEFAULT_STATE_DIR, HELP_TEXT, parseCli } from './desk/cli.ts';
import { attachDesk } from './desk/desk.ts';
import { startLaneForCli } from './links/device-cli.ts';
import { consoleLog, deskLog } from './log.ts';
import { createMachine, MachineStartError } from './machine.ts';
import { StateError } from './links/state-dir.ts';
import { makeTerminal } from './desk/terminal.ts';
import { terminalSafe } from './desk/terminal-text.ts';
import { terminalQr, wantsColour } from './desk/terminal-qr.ts';

// E10: `hooks install|remove` edits Claude Code's settings and ends; it starts no machine.
if (process.argv[2] === 'hooks') {
  const { runHooksCli } = await import('./hooks/hooks-cli.ts');
  process.exit(
    await runHooksCli(process.argv.slice(3), {
      input: process.stdin,
      output: process.stdout,
      errors: process.stderr,
      defaultStateDir: DEFAULT_STATE_DIR,
    }),
  );
}

const parsed = parseCli(process.argv.slice(2));
if (!parsed.ok) {
  process.stderr.write(`machine: ${parsed.message} [${parsed.code}]\n`);
  process.exit(2);
}
if (parsed.help) {
  process.stdout.write(HELP_TEXT);
  process.exit(0);
}
const o = parsed.options;

// A person at a terminal gets the desk's prompt and a quiet log (U5); a pipe or a file (npm
// start, tests, a service manager) gets every log line on stderr, as a log stream should.
const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
let stop: (signal: string) => void = () => process.exit(130);
const terminal = makeTerminal({
  input: process.stdin,
  output: process.stdout,
  errors: process.stderr,
  interactive,
  onInterrupt: () => stop('SIGINT'),
});
const log = interactive
  ? deskLog((line) => terminal.print(line, true), { verbose: o.verbose })
  : consoleLog;

// E10: the ACP agents the user declared (--acp-agent and <state-dir>/agents.json); a bad
// declaration stops the start with its code, as a bad flag does.
const declared = mergeDeclared(o.acpAgents, readAgentsFile(o.stateDir));
if (!declared.ok) {
  process.stderr.write(`machine: ${declared.message} [${declared.code}]\n`);
  process.exit(2);
}
// E10: each agent is checked before the machine starts; a missing one is said and left out.
const agents = await agentsFromCli(o, declared.specs);
for (const line of agents.lines) process.stderr.write(`machine: ${line.text}\n`);
if (agents.providers.length === 0)
  process.stderr.write('machine: no agent can start here: every dispatch will be refused\n');

let machine;
let lane;
try {
  lane = o.deviceLanePort === undefined ? null : await startLaneForCli(o, o.deviceLanePort, log);
  machine = await createMachine({
    relay: o.relay,
    name: o.name,
    roots: o.roots,
    stateDir: o.stateDir,
    appUrl: o.appUrl,
    allowFullAccess: o.allowFullAccess,
    requirePresence: o.requirePresence,
    rePair: o.rePair,
    log,
    agents: agents.providers,
    ...(o.pushAnswerWindowMs !== undefined ? { pushAnswerWindowMs: o.pushAnswerWindowMs } : {}),
    ...(lane !== null ? { toolHost: lane.link.provider } : {}),
  });
} catch (e) {
  if (e instanceof MachineStartError || e instanceof StateError) {
    process.stderr.write(`machine: ${e.message} [${e.code}]\n`);
    await lane?.link.close();
    process.exit(2);
  }
  throw e;
}

// The pairing display is the one place the code (which holds the secret) is shown: it is meant
// to be scanned or copied out of band. It never goes to the log stream (stderr).
const running = machine;
async function showPairing(heading: string): Promise<void> {
  const qr = await terminalQr(
    running.pairing.code,
    wantsColour(process.env, process.stdout.isTTY === true),
  );
  process.stdout.write(`\n${heading}\n\n${qr}\n`);
  terminal.print(`Pairing code: ${running.pairing.code}`);
  terminal.print(`Pairing link: ${running.pairing.link}`);
  terminal.print(`(also in ${running.pairing.codeFile})\n`);
}
await showPairing(
  `Pair a phone with machine "${terminalSafe(o.name)}" — scan this code in the app:`,
);
// E6: after a revoke the old code opens a room the machine has left; only the new one pairs.
machine.on({
  pairingChanged: () =>
    void showPairing(
      'A phone was revoked; the pairing code changed. Pair new phones with this one:',
    ),
});
terminal.print(
  machine.allowedRoots.length > 0
    ? `Phones may dispatch into: ${machine.allowedRoots.join(', ')}${o.allowFullAccess ? ' (full access allowed)' : ''}`
    : 'Dispatch is off: no --root given.',
);
terminal.print(
  agents.providers.length > 0
    ? `Agents: ${agents.providers.map((p) => p.name).join(', ')} (default: ${agents.providers[0]!.name})`
    : 'Agents: none could start (see above).',
);
if (lane !== null) terminal.print(lane.banner());
terminal.print('Type "help" for desk commands.\n');

const detach = attachDesk(machine, terminal, { verbose: o.verbose || !interactive });

let stopping = false;
stop = (signal: string) => {
  if (stopping) return; // a group signal plus a wrapper's forward can arrive twice
  stopping = true;
  detach();
  process.stderr.write(`machine: ${signal}, shutting down\n`);
  machine
    .close()
    .then(() => lane?.link.close())
    .then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`machine: shutdown failed: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
