/// <reference lib="dom" />
// F4: "Forget this machine" leaves nothing of that machine on the phone. The test fills every
// place the app keeps something of a machine — its secret, cards, the transcripts cache, a queued
// reply, prompt and reply drafts, the worker's last-push record, the push client's stale
// endpoints — forgets it, then lists everything IndexedDB (every database, every store) and the
// Cache Storage (every cache, every response body) hold, and finds nothing of it; the other
// machine keeps all of its own.
import { parsePairing } from '../protocol/index.ts';
import { expect, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { pairedTestMachine } from './support/phone.ts';
import { untilCached } from './support/stored.ts';
import { waitForController, writeKeyval } from './support/sw.ts';

/** Every record of every IndexedDB database and every cached response, as text. */
async function everythingStored(page: import('@playwright/test').Page): Promise<string[]> {
  return page.evaluate(async () => {
    const out: string[] = [];
    const show = (v: unknown) =>
      JSON.stringify(v, (_k, x: unknown) =>
        x instanceof ArrayBuffer || ArrayBuffer.isView(x)
          ? Array.from(new Uint8Array(x instanceof ArrayBuffer ? x : x.buffer)).join(',')
          : x,
      );
    for (const info of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(info.name!);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const name of Array.from(db.objectStoreNames)) {
        const store = db.transaction(name, 'readonly').objectStore(name);
        const [keys, values] = await Promise.all(
          [store.getAllKeys(), store.getAll()].map(
            (req) =>
              new Promise<unknown[]>((resolve, reject) => {
                req.onsuccess = () => resolve(req.result as unknown[]);
                req.onerror = () => reject(req.error);
              }),
          ),
        );
        keys!.forEach((k, i) =>
          out.push(`idb ${info.name}/${name} ${show(k)} = ${show(values![i])}`),
        );
      }
      db.close();
    }
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const req of await cache.keys()) {
        const res = await cache.match(req);
        out.push(`cache ${name} ${req.url} = ${res ? await res.text() : ''}`);
      }
    }
    return out;
  });
}

test('F4: "Forget this machine" leaves nothing of it in IndexedDB or the caches — secret, cards, transcripts, queued reply, drafts, push records — and the other machine keeps its own', async ({
  page,
  relay,
}) => {
  const keeper = await pairedTestMachine(page, relay.url, 'keeper');
  const doomed = await pairedTestMachine(page, relay.url, 'doomed');
  const pairing = parsePairing(doomed.code);
  if (!pairing.ok) throw new Error(pairing.message);
  await waitForController(page);

  // A session with a transcript, cached for offline reading, and a card (held in memory only).
  doomed.say({
    type: 'session.snapshot',
    sessions: [
      {
        sessionId: 's1',
        title: 'Doomed-title',
        cwd: '/work/doomed-repo',
        state: 'done',
        lastActivity: Date.now(),
        dispatched: false,
        live: true,
      },
    ],
  });
  doomed.say({
    type: 'approval.request',
    approvalId: 'a1',
    sessionId: 's1',
    title: 'Run doomed-command',
    detail: 'doomed-command --all',
    createdAt: Date.now(),
  });
  await nav(page, `#/m/${doomed.roomId}/s/s1`);
  const ask = await doomed.waitFor((m) => m.type === 'transcript.get');
  doomed.say({
    type: 'transcript',
    requestId: (ask as { requestId: string }).requestId,
    sessionId: 's1',
    entries: [{ seq: 1, role: 'assistant', text: 'doomed-transcript-text', ts: Date.now() }],
  });
  await expect(page.getByText('doomed-transcript-text')).toBeVisible();
  await untilCached(page, 'doomed-transcript-text');

  // A reply the machine never confirms stays queued in the outbox; then a reply draft.
  const box = page.getByLabel('Reply to this session');
  await box.fill('doomed-queued-reply');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await doomed.waitFor((m) => m.type === 'session.message');
  await box.fill('doomed-reply-draft');
  // A prompt draft for a new session on that machine.
  await nav(page, `#/new/${doomed.roomId}`);
  await page.getByLabel('Prompt').fill('doomed-prompt-draft');
  await nav(page, '#/');
  await nav(page, `#/new/${keeper.roomId}`);
  await page.getByLabel('Prompt').fill('keeper-prompt-draft');

  // What the worker records on a push, and an endpoint the push client still has to remove
  // from the room (written as they would be; the push path itself is e2e/push-*.spec.ts).
  await writeKeyval(page, 'push-activity', {
    [doomed.roomId]: { at: Date.now(), kind: 'approval' },
    [keeper.roomId]: { at: Date.now(), kind: 'approval' },
  });
  await writeKeyval(page, 'push-client', {
    enabled: false,
    endpoint: null,
    applicationServerKey: null,
    staleEndpoints: { [doomed.roomId]: ['https://push.example/doomed-old-endpoint'] },
  });
  // Drafts are written a task after the keystroke: wait for them (the event, not a time).
  const missing = async (texts: string[]) => {
    const all = (await everythingStored(page)).join('\n');
    return texts.filter((t) => !all.includes(t));
  };
  await expect
    .poll(() => missing(['doomed-reply-draft', 'doomed-prompt-draft', 'keeper-prompt-draft']))
    .toEqual([]);
  // The push client reads its state at start.
  await page.reload();
  await expect(page.getByLabel('Prompt')).toBeVisible();

  const needles = [doomed.roomId, pairing.value.secret, 'doomed', 'Doomed'];
  // Everything looked for is there before the forget (else finding none after proves nothing).
  expect(
    await missing([
      ...needles,
      'doomed-transcript-text',
      'doomed-queued-reply',
      'doomed-old-endpoint',
    ]),
  ).toEqual([]);

  await nav(page, `#/m/${doomed.roomId}`);
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Forget this machine' }).click();
  await expect(page).toHaveURL(/#\/$/);
  await expect(page.getByRole('link', { name: /keeper/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /doomed/ })).toHaveCount(0);

  // The deletes are IndexedDB writes of their own: wait for them (bounded by the poll). What is
  // left is shown by its first characters (a record can be a whole script).
  const leftovers = async () =>
    (await everythingStored(page))
      .filter((record) => needles.some((n) => record.includes(n)))
      .map((record) => record.slice(0, 200));
  await expect
    .poll(leftovers, { message: 'records that still hold something of "doomed"' })
    .toEqual([]);
  expect(await missing([keeper.roomId, 'keeper-prompt-draft'])).toEqual([]);
  // …and it stays so when the app starts again (nothing written back from memory).
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(await leftovers()).toEqual([]);
  await keeper.close();
  await doomed.close();
});
