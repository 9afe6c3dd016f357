import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startDeviceLane } from './lane.ts';

// A standalone lane: `tsx device/lane/main.ts --data-dir <dir> --users-file <json> [--port N]`.
// Prints one JSON line { url, wsUrl } when listening; SIGTERM/SIGINT drain and exit 0.
// Credentials come from a file, never the command line (visible to every local user in ps).

const usage =
  'usage: tsx device/lane/main.ts --data-dir <dir> --users-file <file.json> [--host H] [--port N]';

const main = async () => {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      'users-file': { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(usage + '\n');
    return;
  }
  const dataDir = values['data-dir'];
  const port = Number(values.port);
  if (dataDir === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(usage + '\n');
    process.exitCode = 2;
    return;
  }
  let users: Record<string, string> = {};
  if (values['users-file'] !== undefined) {
    const parsed: unknown = JSON.parse(readFileSync(values['users-file'], 'utf8'));
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Object.values(parsed).some((v) => typeof v !== 'string')
    ) {
      throw new Error('--users-file must hold a JSON object { "<credential>": "<user id>" }');
    }
    users = parsed as Record<string, string>;
  }
  const lane = await startDeviceLane({ dataDir, users, host: values.host, port });
  process.stdout.write(JSON.stringify({ url: lane.url, wsUrl: lane.wsUrl }) + '\n');
  let stopping = false;
  const stop = () => {
    if (stopping) return; // a group signal plus a forwarded one arrive twice
    stopping = true;
    void lane.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
};

main().catch((e: unknown) => {
  process.stderr.write(`device-lane: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
