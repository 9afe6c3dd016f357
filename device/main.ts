// `npm run device -- …`: the device executor's command line (see device/executor/cli.ts).
import { runCli } from './executor/index.ts';

const code = await runCli(process.argv.slice(2), {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
});
// Exit now: a stopped executor leaves nothing that needs the event loop.
process.exit(code);
