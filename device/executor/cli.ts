// `npm run device -- enroll|serve|status`. Thin: parses flags, calls enrollDevice/startExecutor,
// turns results into messages and exit codes. Tokens may come from flags or from the
// DSH_DEVICE_TOKEN / DSH_DEVICE_USER_TOKEN variables (kept out of the process list that way);
// neither is ever printed, logged or stored.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { enrollDevice } from './enroll.ts';
import { ExecutorStartError, startExecutor, type ExecutorExitReason } from './executor.ts';
import { defaultKeyDir, KEY_FILE, loadRecord } from './keystore.ts';
import { lockPath } from './lock.ts';
import { makeJsonLogger, type LogLevel } from './log.ts';
import { isProcessAlive } from './proc/proc-stat.ts';

export const EXIT_CODES = {
  ok: 0,
  failed: 1,
  usage: 2,
  locked: 3,
  revoked: 4,
  superseded: 5,
  protocol_version_unsupported: 6,
} as const;

const HELP: Record<string, string> = {
  main: `usage: npm run device -- <command> [options]

commands:
  enroll   register this machine as a device (once)
  serve    connect out to the server and run its instructions until stopped
  status   show the enrollment and whether an executor is serving

Run a command with --help for its options.`,
  enroll: `usage: npm run device -- enroll --server <http(s)://host:port> --token <enrollment token>
                            --user-token <credential> --workspace <dir> [--name <display name>] [--key-dir <dir>]

Generates an Ed25519 key on this machine (private key 0600 in a 0700 folder) and registers its
public key. The tokens are used for this request only. They may also be given as the
DSH_DEVICE_TOKEN and DSH_DEVICE_USER_TOKEN environment variables.
Plain http:// is accepted only for loopback servers.`,
  serve: `usage: npm run device -- serve [--key-dir <dir>] [--log-level debug|info|warn|error]

Connects out to the enrolled server (never listens), runs its instructions inside the enrolled
workspace, and reconnects with backoff. SIGINT/SIGTERM: says goodbye, lets running work finish
(up to 10 s), then exits. Only one executor may serve a device at a time.`,
  status: `usage: npm run device -- status [--key-dir <dir>]

Prints the enrollment (device id, server, workspace) and whether an executor holds the lock.`,
};

type Out = { out: (s: string) => void; err: (s: string) => void };

const parse = (args: string[], options: NonNullable<ParseArgsConfig['options']>) =>
  parseArgs({
    args,
    options: { ...options, help: { type: 'boolean' } },
    strict: true,
    allowPositionals: false,
  });

const keyDirOf = (v: unknown) => (typeof v === 'string' ? resolve(v) : defaultKeyDir());

export const runCli = async (argv: string[], io: Out): Promise<number> => {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.out(HELP.main as string);
    return command ? EXIT_CODES.ok : EXIT_CODES.usage;
  }
  let values: Record<string, unknown>;
  try {
    if (command === 'enroll') {
      values = parse(rest, {
        server: { type: 'string' },
        token: { type: 'string' },
        'user-token': { type: 'string' },
        workspace: { type: 'string' },
        name: { type: 'string' },
        'key-dir': { type: 'string' },
      }).values;
    } else if (command === 'serve') {
      values = parse(rest, {
        'key-dir': { type: 'string' },
        'log-level': { type: 'string' },
      }).values;
    } else if (command === 'status') {
      values = parse(rest, { 'key-dir': { type: 'string' } }).values;
    } else {
      io.err(`unknown command "${command}"\n\n${HELP.main}`);
      return EXIT_CODES.usage;
    }
  } catch (e) {
    io.err(`${e instanceof Error ? e.message : 'bad arguments'}\n\n${HELP[command]}`);
    return EXIT_CODES.usage;
  }
  if (values.help) {
    io.out(HELP[command] as string);
    return EXIT_CODES.ok;
  }
  if (command === 'enroll') return enroll(values, io);
  if (command === 'status') return status(keyDirOf(values['key-dir']), io);
  return serve(values, io);
};

const enroll = async (v: Record<string, unknown>, io: Out): Promise<number> => {
  const token = (v.token as string | undefined) ?? process.env.DSH_DEVICE_TOKEN;
  const userToken = (v['user-token'] as string | undefined) ?? process.env.DSH_DEVICE_USER_TOKEN;
  const missing = [
    ['--server', v.server],
    ['--token', token],
    ['--user-token', userToken],
    ['--workspace', v.workspace],
  ].filter(([, x]) => typeof x !== 'string' || x === '');
  if (missing.length > 0) {
    io.err(`missing ${missing.map(([n]) => n).join(', ')}\n\n${HELP.enroll}`);
    return EXIT_CODES.usage;
  }
  const workspace = resolve(v.workspace as string);
  if (!existsSync(workspace) || !statSync(workspace).isDirectory()) {
    io.err(`--workspace ${workspace} is not a folder`);
    return EXIT_CODES.usage;
  }
  const keyDir = keyDirOf(v['key-dir']);
  const r = await enrollDevice({
    server: v.server as string,
    token: token as string,
    userToken: userToken as string,
    workspaceRoot: workspace,
    keyDir,
    ...(typeof v.name === 'string' ? { displayName: v.name } : {}),
    log: makeJsonLogger((l) => io.err(l.trimEnd()), 'warn'),
  });
  if (!r.ok) {
    io.err(`enroll failed (${r.code}): ${r.message}`);
    return EXIT_CODES.failed;
  }
  io.out(`Enrolled as ${r.deviceId}. Key and enrollment stored in ${keyDir}.`);
  io.out(
    `Start serving with: npm run device -- serve${v['key-dir'] ? ` --key-dir ${keyDir}` : ''}`,
  );
  return EXIT_CODES.ok;
};

const status = (keyDir: string, io: Out): number => {
  const record = loadRecord(keyDir);
  if (!record) {
    io.out(`not enrolled (no enrollment in ${keyDir})`);
    return EXIT_CODES.failed;
  }
  io.out(`device     ${record.deviceId}`);
  io.out(`server     ${record.server}`);
  io.out(`workspace  ${record.workspaceRoot}`);
  io.out(`enrolled   ${record.enrolledAt}`);
  const keyFile = join(keyDir, KEY_FILE);
  const mode = existsSync(keyFile) ? (statSync(keyFile).mode & 0o777).toString(8) : null;
  io.out(`key        ${mode ? `${keyFile} (mode ${mode})` : 'missing — enroll again'}`);
  let holder = '';
  try {
    holder = readFileSync(lockPath(keyDir, record.deviceId), 'utf8');
  } catch {
    io.out('serving    no (lock free)');
    return EXIT_CODES.ok;
  }
  const [pid, start] = holder.trim().split(' ');
  const alive = isProcessAlive(Number(pid), start);
  io.out(
    alive
      ? `serving    yes (pid ${pid})`
      : `serving    no (stale lock of pid ${pid}; the next serve takes it over)`,
  );
  return EXIT_CODES.ok;
};

const serve = async (v: Record<string, unknown>, io: Out): Promise<number> => {
  const level = (v['log-level'] as LogLevel | undefined) ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(level)) {
    io.err(`--log-level must be debug, info, warn or error\n\n${HELP.serve}`);
    return EXIT_CODES.usage;
  }
  const log = makeJsonLogger((l) => io.err(l.trimEnd()), level);
  let executor;
  try {
    executor = await startExecutor({ keyDir: keyDirOf(v['key-dir']), log });
  } catch (e) {
    if (e instanceof ExecutorStartError) {
      io.err(`serve refused (${e.code}): ${e.message}`);
      return e.code === 'locked' ? EXIT_CODES.locked : EXIT_CODES.failed;
    }
    throw e;
  }
  io.err(`serving ${executor.deviceId} (epoch ${executor.epoch}); Ctrl-C to stop`);
  // A signal can arrive twice (npm forwards it, and the group gets it too): the first one counts.
  const onSignal = (sig: NodeJS.Signals) =>
    void executor.stop(sig === 'SIGINT' ? 'user_stop' : 'shutdown');
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The handlers stay until the process exits: a late repeat must not hit the default action.
  const exit = await executor.done;
  io.err(exit.reason === 'stopped' ? exit.message : `stopped: ${exit.message}`);
  return EXIT_BY_REASON[exit.reason];
};

const EXIT_BY_REASON: Record<ExecutorExitReason, number> = {
  stopped: EXIT_CODES.ok,
  revoked: EXIT_CODES.revoked,
  superseded: EXIT_CODES.superseded,
  protocol_version_unsupported: EXIT_CODES.protocol_version_unsupported,
};
