// `npm start`: the whole demo on this computer — the relay, the mock machine (hosting the device
// lane, dispatching into a demo git workspace), an enrolled device executor serving that
// workspace, and the built app. All state lives in .data/ (git-ignored) and is reused by the next
// start. Ctrl-C stops every part (each its own process group) and waits until all are gone.
// `npm start -- --lan` (P4) puts Caddy with its own CA in front of the app and the relay on the
// computer's LAN address, so a phone on the same network gets a secure origin.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DESK_NEWS_LINE } from '../machine/log.ts';
import { makeTerminal } from '../machine/desk/terminal.ts';
import { terminalQr, wantsColour } from '../machine/desk/terminal-qr.ts';
import { buildIfNeeded } from './start/build.ts';
import { REPO, startPart, stopParts, tsNode, type Part } from './start/children.ts';
import { caddyBinary, certFingerprint } from './start/caddy.ts';
import {
  READY_LINE,
  readStartConfig,
  START_ENV,
  StartConfigError,
  StartError,
} from './start/config.ts';
import { ensureEnrolled } from './start/enroll.ts';
import { CADDY_MISSING, caSteps, caValidity, lanAddress } from './start/lan.ts';
import { RELAY_PATH, startLanFront } from './start/lan-front.ts';
import { PORT_TAKEN, portUses, takenPorts } from './start/ports.ts';
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
 * comings and goings (the desk's `status` answers those) — but never E9.9's new phones. */
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
  const order = ['device', 'machine', 'app', 'caddy', 'relay'];
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
  const config = readStartConfig(process.env, REPO, process.argv.slice(2));
  let lanHost: string | null = null;
  if (config.lan) {
    if (caddyBinary() === null) throw new StartError('caddy-missing', CADDY_MISSING);
    lanHost = config.lanHost ?? lanAddress();
    if (lanHost === null)
      throw new StartError(
        'no-lan-address',
        `this computer has no network address for a phone to reach; connect it, or set ${START_ENV.lanHost}`,
      );
  }
  const taken = await takenPorts(portUses(config, lanHost));
  if (taken.length > 0) {
    for (const line of taken) terminal.print(`[start] ${line} [${PORT_TAKEN}]`, true);
    terminal.close();
    process.exit(1);
  }
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
        // Behind Caddy: under its path, counting clients by their forwarded address.
        ...(lanHost === null ? [] : ['--path', RELAY_PATH, '--trust-proxy']),
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
  const lan =
    lanHost === null
      ? null
      : await startLanFront({
          config,
          host: lanHost,
          relayPort: config.relayPort,
          watch,
          stopping: () => stopping,
        });
  if (stopping) return;
  const relayUrl =
    config.publicRelayUrl ?? (lan ? `wss://${lan.address}${RELAY_PATH}` : localRelayUrl);
  const localAppUrl = `http://127.0.0.1:${config.appPort}`;
  const appUrl = config.publicAppUrl ?? (lan ? `https://${lan.address}` : localAppUrl);
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
            (!config.verbose && MACHINE_CHATTER.test(line) && !DESK_NEWS_LINE.test(line)),
        },
        // Behind Caddy the machine dials wss:// and must trust Caddy's local CA.
        ...(lan ? { env: { NODE_EXTRA_CA_CERTS: lan.root } } : {}),
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
  const colour = wantsColour(process.env, process.stdout.isTTY === true);
  const pairingLink = `${appUrl}/#pair=${code}`;
  if (lan) {
    process.stdout.write(
      [
        '',
        ...caSteps(certFingerprint(lan.root)),
        ...caValidity(lan.root, lan.host, lan.caIssued),
        await terminalQr(lan.caUrl, colour),
        `  CA certificate: ${lan.caUrl}`,
        '',
        'Step 2 — pair: scan this code with the phone’s camera (it opens the app), or open the link.',
        await terminalQr(pairingLink, colour),
      ].join('\n'),
    );
  }
  const qr = lan ? '' : await terminalQr(code, colour);
  process.stdout.write(
    [
      '',
      ...(lan ? [] : ['Pair your phone: scan this code in the app, or open the pairing link.', qr]),
      `${READY_LINE}.`,
      lan
        ? `  App:          ${appUrl}  (for the phone, once it trusts the CA; this computer: ${localAppUrl})`
        : `  App:          ${appUrl}  (open it on this computer, or see README "Using it from a real phone")`,
      `  Pairing link: ${pairingLink}`,
      `  Relay:        ${relayUrl}  (health: http://127.0.0.1:${config.relayPort}${lan ? RELAY_PATH : ''}/healthz)`,
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
  const code = e instanceof StartConfigError || e instanceof StartError ? e.code : 'start-failed';
  terminal.print(`[start] ${(e as Error).message} [${code}]`, true);
  // Refused before anything started: one line, no "stopping" noise.
  if (parts.length === 0) {
    terminal.close();
    process.exit(1);
  }
  void shutdown('start failed', 1);
});
