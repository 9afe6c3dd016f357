// `npx tsx machine/tools/store-size.ts`: fills a machine store past every bound in a temporary
// state dir and prints its size (docs/machine.md, "What the state dir holds"). Not a test: it
// writes about 150 MB and takes tens of seconds.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { consoleLog } from '../log.ts';
import { MAX_SEEN_REQUESTS } from '../wire/seen-requests.ts';
import { makeSessionStore, MAX_KEPT_SESSIONS } from '../sessions/sessions.ts';
import { openStore } from '../sessions/store.ts';
import { makeTranscripts } from '../sessions/transcript.ts';

const ENTRIES_PER_SESSION = 150;
const ENTRY_CHARS = 10 * 1024 - 20;

const dir = mkdtempSync(path.join(os.tmpdir(), 'machine-store-size-'));
try {
  const store = openStore(dir, { log: consoleLog });
  let now = Date.now();
  const sessions = makeSessionStore({ store, transcripts: makeTranscripts(store), now: () => now });
  const text = 'x'.repeat(ENTRY_CHARS);
  for (let i = 0; i < MAX_KEPT_SESSIONS + 20; i++) {
    const s = sessions.create({
      prompt: `session ${i}`,
      cwd: dir,
      dispatched: true,
      access: 'standard',
      now: now++,
    });
    for (let j = 0; j < ENTRIES_PER_SESSION; j++)
      s.transcript.append('assistant', `${j} ${text}`, now);
  }
  // The ids in one transaction: the machine syncs each one to disk, which would take minutes here.
  const insert = store.db.prepare(
    'INSERT INTO seen_requests (request_id, type, seen_at) VALUES (?, ?, ?)',
  );
  store.db.transaction(() => {
    for (let i = 0; i < MAX_SEEN_REQUESTS; i++) insert.run(randomUUID(), 'dispatch.request', now);
  })();
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const files = readdirSync(dir).map((f) => `${f} ${statSync(path.join(dir, f)).size} bytes`);
  process.stdout.write(
    `${new Date().toISOString()} sessions kept: ${sessions.list().length}\n${files.join('\n')}\n`,
  );
  store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
