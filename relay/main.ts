// `npm run relay -- [options]`: flags and RELAY_* environment variables (see --help).
import { helpText, parseSettings, startRelay } from './index.ts';

const parsed = parseSettings(process.argv.slice(2), process.env);
if (!parsed.ok) {
  process.stderr.write(`relay: ${parsed.message}\n`);
  process.exit(2);
}
if (parsed.help) {
  process.stdout.write(`${helpText()}\n`);
  process.exit(0);
}
// Logs go to stderr so stdout carries only the one line scripts wait for.
const relay = await startRelay({ ...parsed.settings, logDestination: process.stderr }).catch(
  (e: unknown) => {
    process.stderr.write(`relay: cannot start: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
process.stdout.write(`relay listening on ${relay.url}\n`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return; // a group signal plus a wrapper's forward can arrive twice
  stopping = true;
  relay.log.info({ signal }, 'shutting down');
  relay.close().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`relay: shutdown failed: ${(e as Error).message}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
