import { appUrl, expect, expectAccessible, pairByCode, test } from './support/fixtures.ts';
import { makeTestMachine } from './support/test-machine.ts';

test.describe('Pairing (A1, D14)', () => {
  test('by pasted code: confirm shows machine and relay host, then the machine appears with its presence', async ({
    page,
    relay,
  }) => {
    const machine = makeTestMachine(relay.url, 'laptop');
    await machine.connect();
    await page.goto('/#/pair');
    await expectAccessible(page, 'pair');
    await page.getByLabel('Pairing code').fill(machine.code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByText('Machine: laptop')).toBeVisible();
    await expect(page.getByText(`Relay: 127.0.0.1:${relay.port}`)).toBeVisible();
    await expectAccessible(page, 'pair confirm');
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'laptop' })).toBeVisible();
    await expect(page.getByText('Machine online')).toBeVisible();
    await machine.waitFor((m) => m.type === 'sessions.get');
    await expectAccessible(page, 'machine');
    // The secret lives only in IndexedDB, never in localStorage or the URL.
    const secretPart = machine.code.slice(-20);
    expect(page.url()).not.toContain(secretPart);
    const local = await page.evaluate(() => {
      const storage = (globalThis as unknown as { localStorage: Record<string, string> })
        .localStorage;
      return JSON.stringify({ ...storage });
    });
    expect(local).not.toContain(secretPart);
    await machine.close();
  });

  test('by link: the #pair= fragment leaves the address bar and the history at once', async ({
    page,
    relay,
  }) => {
    const machine = makeTestMachine(relay.url, 'desk');
    await machine.connect();
    await page.goto('/');
    await page.goto(machine.link(appUrl));
    await expect(page.getByText('Machine: desk')).toBeVisible();
    expect(page.url()).not.toContain('pair=');
    expect(page.url()).toMatch(/#\/pair$/);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'desk' })).toBeVisible();
    await page.goBack();
    expect(page.url()).not.toContain('pair=');
    await page.goBack();
    expect(page.url()).not.toContain('pair=');
    await machine.close();
  });

  test('a bad code gets the message of its protocol error and nothing is stored', async ({
    page,
  }) => {
    await page.goto('/#/pair');
    await page.getByLabel('Pairing code').fill('not a code!');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('alert')).toHaveText(
      'This is not a pairing code (it must be base64url).',
    );
    await page
      .getByLabel('Pairing code')
      .fill(
        Buffer.from('{"v":1,"relay":"wss://r.example","secret":"AAAA","machine":"m"}').toString(
          'base64url',
        ),
      );
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('alert')).toHaveText(
      'The secret in this code is not valid (it must be 32 bytes).',
    );
    await page.goto('/');
    await expect(page.getByText('No machine is paired yet.')).toBeVisible();
  });

  test('re-pairing a machine replaces it (one entry, new secret)', async ({ page, relay }) => {
    const first = makeTestMachine(relay.url, 'laptop');
    const second = makeTestMachine(relay.url, 'laptop');
    await first.connect();
    await second.connect();
    await pairByCode(page, first.code, 'laptop');
    await page.goto('/#/pair');
    await page.getByLabel('Pairing code').fill(second.code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(
      page.getByText('This machine is already paired: its secret will be replaced.'),
    ).toBeVisible();
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await expect(page.getByText('Machine online')).toBeVisible();
    await page.goto('/');
    await expect(page.getByRole('link', { name: /laptop/ })).toHaveCount(1);
    await first.close();
    await second.close();
  });
});

test.describe('QR scanner (A1, A8)', () => {
  test('is loaded only when opened, its decoder only with a camera; without a camera it says so and leaves paste available', async ({
    page,
  }) => {
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(r.url());
    });
    await page.goto('/#/pair');
    await expect(page.getByRole('button', { name: 'Scan QR code' })).toBeVisible();
    const before = scripts.filter((u) => /scanner|qr-frames/.test(u));
    expect(before).toEqual([]);
    await page.getByRole('button', { name: 'Scan QR code' }).click();
    await expect(page.getByRole('alert')).toHaveText(
      /No camera is available|Camera permission was denied|The scanner could not start/,
    );
    expect(scripts.some((u) => /scanner/.test(u))).toBe(true);
    // The decoder is fetched only once there is a camera to read.
    expect(scripts.filter((u) => /qr-frames/.test(u))).toEqual([]);
    await expect(page.getByLabel('Pairing code')).toBeEditable();
    await expectAccessible(page, 'pair after a failed scan');
  });
});

test.describe('Forget (A4 Machine)', () => {
  test('forgetting a machine deletes its secret from IndexedDB and leaves its room', async ({
    page,
    relay,
  }) => {
    const machine = makeTestMachine(relay.url, 'old-laptop');
    await machine.connect();
    await pairByCode(page, machine.code, 'old-laptop');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Forget this machine' }).click();
    await expect(page.getByText('No machine is paired yet.')).toBeVisible();
    const stored = await page.evaluate(
      () =>
        new Promise<string>((resolve, reject) => {
          type Req<T> = { result: T; onsuccess: (() => void) | null; onerror: (() => void) | null };
          type Db = {
            transaction(s: string): { objectStore(s: string): { get(k: string): Req<unknown> } };
          };
          const idb = (globalThis as unknown as { indexedDB: { open(n: string): Req<Db> } })
            .indexedDB;
          const req = idb.open('keyval-store');
          req.onerror = () => reject(new Error('open failed'));
          req.onsuccess = () => {
            const get = req.result.transaction('keyval').objectStore('keyval').get('pairings');
            get.onsuccess = () => resolve(JSON.stringify(get.result));
          };
        }),
    );
    expect(JSON.parse(stored)).toEqual([]);
    await machine.waitFor(() => machine.phonePresence.at(-1) === false);
    await page.reload();
    await expect(page.getByText('No machine is paired yet.')).toBeVisible();
    await machine.close();
  });
});
