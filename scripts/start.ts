// `npm start`: the whole demo on this computer — the relay, the mock machine (hosting the device
// lane, dispatching into a demo git workspace), an enrolled device executor serving that
// workspace, and the built app. All state lives in .data/ (git-ignored) and is reused by the next
// start. Ctrl-C stops every part (each its own process group) and waits until all are gone.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTerminal } from '../machine/terminal.ts';
import { terminalQr, wantsColour } from '../machine/terminal-qr.ts';
import { buildIfNeeded } from './start/build.ts';
import { REPO, startPart, stopParts, tsNode, type Part } from './start/children.ts';
import { READY_LINE, readStartArgs, readStartConfig, StartConfigError } from './start/config.ts';
import { ensureEnrolled } from './start/enroll.ts';
import { ensureDemoWorkspace } from './start/workspace.ts';

const READY_TIMEOUT_MS = 60_000;
/** The machine's own pairing display and device-enrollment banner: this script does both. */
const MACHINE_DISPLAY = [
  /^Pair a phone|^Pairing (code|link):|^\(also in/,
  /^(\x1b\[[0-9;]*m|[\s▀▄█])*$/, // the QR code and blank lines
  /^Device lane:|^connected, here otherwise|^To enroll one|npm run device -- (enroll|serve)/,
  /^The user credential stays in|^the command reads it there|^command line\. On another computer/,
];
/** U5: quiet unless --verbose: the machine's info lines and the relay's, phones' and devices'
 * comings and goings (the desk's `status` answers those). */
const MACHINE_CHATTER = /^\S+ (info |warn {2}(relay|phone|device)-)/;

const parts: Part[] = [];
let stopping = false;
// The desk is typed here and forwarded to the machine; everything printed goes through this
// terminal, so it never breaks into a half-typed line (U5) and outside text is made safe (H5).
const terminal = makeTerminal({
  input: process.stdin,
  output: process.stdout,
  interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
  onInterrupt: () => {
    if (!stopping) void shutdown('SIGINT', 0);
  },
});
const say = (text: string) => terminal.print(text);
const print = (line: string) => terminal.print(line);

async function shutdown(why: string, code: number): Promise<never> {
  stopping = true;
  terminal.close();
  say(`\n[start] ${why}: stopping ${parts.map((p) => p.name).join(', ')}…`);
  // The executor first (it says goodbye to the lane), the relay last (the machine's sockets close
  // cleanly first).
  const order = ['device', 'machine', 'app', 'relay'];
  // (the enrollment process, if one is running, is named 'device' too and goes first)
  const sorted = [...parts].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  await stopParts(sorted.slice(0, 1));
  await stopParts(sorted.slice(1));
  say('[start] everything stopped.');
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // npm, tsx and the terminal may each deliver the same Ctrl-C: the first one counts.
    if (stopping) return;
    void shutdown(signal, 0);
  });
}

function watch(part: Part): Part {
  parts.push(part);
  void part.exited.then((code) => {
    if (!stopping) void shutdown(`${part.name} exited unexpectedly (${code})`, 1);
  });
  return part;
}

async function main(): Promise<void> {
  const args = readStartArgs(process.argv.slice(2));
  const config = readStartConfig(process.env, REPO);
  buildIfNeeded();
  if (stopping) return;
  const workspace = path.join(config.dataDir, 'workspace');
  const { created } = ensureDemoWorkspace(workspace);
  say(`[start] demo workspace ${workspace}${created ? ' (created, a git repository)' : ''}`);

  const relay = watch(
    startPart(
      'relay',
      tsNode(
        'relay/main.ts',
        '--port',
        String(config.relayPort),
        '--data-dir',
        path.join(config.dataDir, 'relay'),
        '--vapid-subject',
        config.vapidSubject,
        '--log-level',
        'warn',
      ),
      { print },
    ),
  );
  watch(
    startPart(
      'app',
      [
        path.join(REPO, 'node_modules/.bin/vite'),
        ['preview', '--host', '127.0.0.1', '--port', String(config.appPort), '--strictPort'],
      ],
      { quiet: /^\s*(➜|$)|press h/, print },
    ),
  );
  const localRelayUrl = (
    await relay.waitForLine(/relay listening on (ws:\/\/\S+)/, 'the relay', READY_TIMEOUT_MS)
  )[1]!;
  const relayUrl = config.publicRelayUrl ?? localRelayUrl;
  const localAppUrl = `http://127.0.0.1:${config.appPort}`;
  const appUrl = config.publicAppUrl ?? localAppUrl;
  const stateDir = path.join(config.dataDir, 'machine');
  const machine = watch(
    startPart(
      'machine',
      tsNode(
        'machine/main.ts',
        '--relay',
        relayUrl,
        '--name',
        config.machineName,
        '--root',
        workspace,
        '--state-dir',
        stateDir,
        '--app-url',
        appUrl,
        '--device-lane-port',
        String(config.lanePort),
      ),
      // The enrollment command the machine prints is for enrolling by hand; this script enrolls
      // the demo's executor itself, so those lines would only mislead. The pairing display is
      // shown once, at the end, where it does not scroll away.
      {
        rawStdout: true,
        stdin: true,
        print,
        quiet: {
          test: (line: string) =>
            MACHINE_DISPLAY.some((re) => re.test(line)) ||
            (!args.verbose && MACHINE_CHATTER.test(line)),
        },
      },
    ),
  );
  const laneUrl = (
    await machine.waitForLine(/^Device lane: (http:\/\/\S+)/, 'the device lane', READY_TIMEOUT_MS)
  )[1]!;
  await machine.waitForLine(/desk commands/, 'the machine', READY_TIMEOUT_MS);
  if (stopping) return;

  const keyDir = path.join(config.dataDir, 'device-key');
  const enrollment = await ensureEnrolled({
    keyDir,
    laneUrl,
    workspace,
    credentialFile: path.join(stateDir, 'device-user-credential'),
    track: (part) => parts.push(part),
  });
  if (stopping) return;
  say(
    `[start] device ${enrollment.deviceId} ${enrollment.reused ? 'already enrolled' : 'enrolled'}`,
  );
  watch(
    startPart(
      'device',
      tsNode('device/main.ts', 'serve', '--key-dir', keyDir, '--log-level', 'warn'),
      { print },
    ),
  );
  await machine.waitForLine(/device-online/, 'the device executor to connect', READY_TIMEOUT_MS);
  await waitForHttp(localAppUrl, READY_TIMEOUT_MS);
  if (stopping) return;

  const code = readFileSync(path.join(stateDir, 'pairing-code.txt'), 'utf8').trim();
  const qr = await terminalQr(code, wantsColour(process.env, process.stdout.isTTY === true));
  process.stdout.write(
    [
      '',
      'Pair your phone: scan this code in the app, or open the pairing link.',
      qr,
      `${READY_LINE}.`,
      `  App:          ${appUrl}  (open it on this computer, or see README "Using it from a real phone")`,
      `  Pairing link: ${appUrl}/#pair=${code}`,
      `  Relay:        ${relayUrl}  (health: http://127.0.0.1:${config.relayPort}/healthz)`,
      `  Device:       ${enrollment.deviceId} serving ${workspace}`,
      `  State:        ${config.dataDir}`,
      'Type desk commands here ("help"); Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
  terminal.start((line) => machine.child.stdin!.write(`${line}\n`));
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end || stopping) throw new Error(`${url} did not answer`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

main().catch((e: unknown) => {
  if (stopping) return;
  const code = e instanceof StartConfigError ? e.code : 'start-failed';
  terminal.print(`[start] ${(e as Error).message} [${code}]`, true);
  void shutdown('start failed', 1);
});
