// `npm run machine -- --relay ws://127.0.0.1:8787 …` (see --help): the mock machine in a terminal.
import { HELP_TEXT, parseCli } from './cli.ts';
import { attachDesk } from './desk.ts';
import { createMachine, MachineStartError } from './machine.ts';
import { StateError } from './state-dir.ts';
import { terminalQr, wantsColour } from './terminal-qr.ts';
import { startLaneForCli } from './device-cli.ts';

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

let machine;
let lane;
try {
  lane = o.deviceLanePort === undefined ? null : await startLaneForCli(o, o.deviceLanePort);
  machine = await createMachine({
    relay: o.relay,
    name: o.name,
    roots: o.roots,
    stateDir: o.stateDir,
    appUrl: o.appUrl,
    allowFullAccess: o.allowFullAccess,
    rePair: o.rePair,
    ...(o.pushAnswerWindowMs !== undefined ? { pushAnswerWindowMs: o.pushAnswerWindowMs } : {}),
    ...(lane !== null ? { toolHost: lane.link.provider } : {}),
  });
} catch (e) {
  if (e instanceof MachineStartError || e instanceof StateError) {
    process.stderr.write(`machine: ${e.message} [${e.code}]\n`);
    process.exit(2);
  }
  throw e;
}

// The pairing display is the one place the code (which holds the secret) is shown: it is meant
// to be scanned or copied out of band. It never goes to the log stream (stderr).
const qr = await terminalQr(
  machine.pairing.code,
  wantsColour(process.env, process.stdout.isTTY === true),
);
const out = process.stdout;
out.write(`\nPair a phone with machine "${o.name}" — scan this code in the app:\n\n${qr}\n`);
out.write(`Pairing code: ${machine.pairing.code}\n`);
out.write(`Pairing link: ${machine.pairing.link}\n`);
out.write(`(also in ${machine.pairing.codeFile})\n\n`);
out.write(
  machine.allowedRoots.length > 0
    ? `Phones may dispatch into: ${machine.allowedRoots.join(', ')}${o.allowFullAccess ? ' (full access allowed)' : ''}\n`
    : 'Dispatch is off: no --root given.\n',
);
if (lane !== null) out.write(lane.banner());
out.write('Type "help" for desk commands.\n\n');

const detach = attachDesk(machine, process.stdin, out, HELP_TEXT);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return; // a group signal plus a wrapper's forward can arrive twice
  stopping = true;
  process.stderr.write(`machine: ${signal}, shutting down\n`);
  detach();
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
