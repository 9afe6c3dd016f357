// BENCH ONLY (`npm run bench:agents`), never a product entry: the relay of relay/main.ts with a
// stamp at the receive and at the send of every frame, so the bench can tell the relay's part
// of a card's trip from the link's and the phone's. Each stamp is `rin|rout <CLOCK_MONOTONIC
// ns> <fingerprint>`: the first 12 hex digits of the SHA-256 of the frame's bytes (sealed
// bytes; nothing is opened, no plaintext exists here) — the machine's bench entry prints the
// same fingerprint of the frame it sends. Nothing changes in how the relay works.
import { createHash } from 'node:crypto';
import { Connection } from './connection.ts';

const fp = (data: Buffer | string) => createHash('sha256').update(data).digest('hex').slice(0, 12);

const onMessage = Connection.prototype.onMessage;
Connection.prototype.onMessage = function (this: Connection, data, isBinary) {
  process.stdout.write(`rin ${process.hrtime.bigint()} ${fp(data)}\n`);
  onMessage.call(this, data, isBinary);
};
const send = Connection.prototype.send;
Connection.prototype.send = function (this: Connection, data) {
  if (typeof data !== 'string')
    process.stdout.write(`rout ${process.hrtime.bigint()} ${fp(data)}\n`);
  send.call(this, data);
};

await import('./main.ts');
