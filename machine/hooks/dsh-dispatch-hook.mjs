// @ts-check
// E10 (desk sessions): Claude Code runs this program for each hook event we installed
// (`npm run machine -- hooks install`). It hands the event to the running machine over the unix
// socket named by its argument and prints the machine's answer, if any, as the hook's output.
// Plain JavaScript with only node:net: it starts in tens of milliseconds and loads nothing else.
// With no machine, a refused connection or any surprise it ends at once with no output (exit 0):
// Claude Code goes on as if no hook were installed. Every wait is bounded; it never allows
// anything by itself — only the machine's answer (a human's decision) is ever printed.

import { connect } from 'node:net';

/** Above the machine's approval expiry (30 min): the machine's own expiry ends the wait first. */
const PERMISSION_WAIT_MS = 31 * 60_000;
/** The other events only report; the machine answers them at once. */
const REPORT_WAIT_MS = 3000;
/** Claude Code writes the event and closes stdin; a stdin that never closes is not waited for. */
const STDIN_WAIT_MS = 5000;
const MAX_BYTES = 4 * 1024 * 1024;

/** @param {string} [output] */
function finish(output) {
  if (output !== undefined) process.stdout.write(output);
  process.exit(0);
}

const socketPath = process.argv[2];
if (socketPath === undefined) finish();

/** @type {Buffer[]} */
const chunks = [];
let size = 0;
const stdinTimer = setTimeout(() => finish(), STDIN_WAIT_MS);
process.stdin.on('data', (c) => {
  size += c.length;
  if (size > MAX_BYTES) finish();
  chunks.push(c);
});
process.stdin.on('error', () => finish());
process.stdin.on('end', () => {
  clearTimeout(stdinTimer);
  send(Buffer.concat(chunks).toString('utf8'));
});

/** @param {string} text */
function send(text) {
  /** @type {unknown} */
  let event;
  try {
    event = JSON.parse(text);
  } catch {
    return finish();
  }
  const asks =
    typeof event === 'object' &&
    event !== null &&
    /** @type {{hook_event_name?: unknown}} */ (event).hook_event_name === 'PermissionRequest';
  const timer = setTimeout(() => finish(), asks ? PERMISSION_WAIT_MS : REPORT_WAIT_MS);
  const socket = connect(/** @type {string} */ (socketPath));
  socket.on('error', () => finish());
  socket.on('connect', () => socket.write(`${JSON.stringify(event)}\n`));
  let reply = '';
  socket.setEncoding('utf8');
  socket.on('data', (/** @type {string} */ d) => {
    reply += d;
    if (reply.length > MAX_BYTES) finish();
    const nl = reply.indexOf('\n');
    if (nl < 0) return;
    clearTimeout(timer);
    /** @type {unknown} */
    let answer;
    try {
      answer = JSON.parse(reply.slice(0, nl));
    } catch {
      return finish();
    }
    const output =
      typeof answer === 'object' && answer !== null
        ? /** @type {{output?: unknown}} */ (answer).output
        : undefined;
    finish(typeof output === 'object' && output !== null ? JSON.stringify(output) : undefined);
  });
  socket.on('end', () => finish());
}
