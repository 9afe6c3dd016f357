import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, expectAccessible, pairByCode, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { pairedTestMachine, startSession } from './support/phone.ts';

// U2: nothing the owner typed is lost. U3: the transcript never shrinks, and reads well.

const liveSession = {
  sessionId: 's1',
  title: 'Fix the build',
  cwd: '/work/repo',
  state: 'done',
  lastActivity: Date.now(),
  dispatched: false,
  live: true,
};
const entries = (page: Page, text: string | RegExp) =>
  page.getByRole('listitem').filter({ hasText: text });
/**
 * Waits until a draft holding `text` is in IndexedDB. A write takes one task to commit; a page
 * torn down within those milliseconds of the last keystroke can lose that keystroke (a browser
 * aborts IndexedDB transactions still open at unload) — no owner reloads that fast.
 */
async function draftStored(page: Page, text: string) {
  const stored = () =>
    page.evaluate(
      (want) =>
        new Promise<boolean>((resolve) => {
          const open = indexedDB.open('keyval-store');
          open.onsuccess = () => {
            const all = open.result.transaction('keyval').objectStore('keyval').getAll();
            all.onsuccess = () =>
              resolve(all.result.some((v: { text?: string } | null) => v?.text === want));
          };
        }),
      text,
    );
  await expect.poll(stored).toBe(true);
}
/** An agent entry whose whole text is `text`. */
const said = (page: Page, text: string) =>
  page.locator('li.entry.assistant').getByText(text, { exact: true });

test.describe('U2: nothing typed is lost', () => {
  test('U2.1: a long reply is refused before it is sent and kept; a machine refusal puts it back with the reason beside Send', async ({
    page,
    relay,
  }) => {
    const machine = await pairedTestMachine(page, relay.url);
    machine.say({ type: 'session.snapshot', sessions: [liveSession] });
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    const box = page.getByLabel('Reply to this session');
    const send = page.getByRole('button', { name: 'Send', exact: true });
    await box.fill('x'.repeat(9000));
    await expect(
      page.getByText(
        '9000 / 8192 characters · 9000 / 10240 bytes — The reply is too long: shorten it to send.',
      ),
    ).toBeVisible();
    await expect(send).toBeDisabled();
    await expect(box).toHaveValue('x'.repeat(9000));
    await expectAccessible(page, 'session with an over-long reply');

    await box.fill('please also run the linter');
    await send.click();
    const sent = await machine.waitFor((m) => m.type === 'session.message');
    expect(sent).toMatchObject({ text: 'please also run the linter' });
    machine.say({
      type: 'error',
      message: 'this session is no longer held by the machine; start a new one',
      sessionId: 's1',
      reason: 'no-remote-followup',
    });
    await expect(box).toHaveValue('please also run the linter');
    const why = page.getByRole('alert').filter({ hasText: 'Not delivered — back in the box' });
    await expect(why).toHaveText(
      'Not delivered — back in the box: This session cannot take follow-up messages from the phone.',
    );
    // Right beside Send: in view together with it, directly below it.
    await send.scrollIntoViewIfNeeded();
    await expect(why).toBeInViewport();
    const [b, w] = [await send.boundingBox(), await why.boundingBox()];
    expect(w!.y - (b!.y + b!.height)).toBeLessThan(48);
    await machine.close();
  });

  test('U2.3: the New-session prompt and an unsent reply survive a reload and an app restart, and clear only when delivered', async ({
    page,
    context,
    machine,
  }) => {
    const m = await machine('demo');
    await pairByCode(page, m.pairingCode, 'demo');
    await nav(page, '#/new');
    await page.getByLabel('Prompt').fill('say: kept across restarts');
    await draftStored(page, 'say: kept across restarts');
    await page.reload();
    await expect(page.getByLabel('Prompt')).toHaveValue('say: kept across restarts');
    // An app restart: the page goes away, a new one opens the app.
    await page.close();
    const again = await context.newPage();
    await again.goto('/#/new');
    await expect(again.getByLabel('Prompt')).toHaveValue('say: kept across restarts');
    await again.getByRole('button', { name: 'Start session' }).click();
    await expect(again.getByText('Started from phone')).toBeVisible();
    await expect(entries(again, 'kept across restarts').first()).toBeVisible();
    await nav(again, '#/new');
    await expect(again.getByLabel('Prompt')).toHaveValue('');

    await again.goBack();
    await again.getByLabel('Reply to this session').fill('an unsent reply\nwith two lines');
    await draftStored(again, 'an unsent reply\nwith two lines');
    await again.reload();
    await expect(again.getByLabel('Reply to this session')).toHaveValue(
      'an unsent reply\nwith two lines',
    );
    const url = again.url();
    await again.close();
    const third = await context.newPage();
    await third.goto(url);
    await expect(third.getByLabel('Reply to this session')).toHaveValue(
      'an unsent reply\nwith two lines',
    );
  });

  test('U2.2 + U2.4: a question arriving at the reply box is announced there; replies sent while it waits are queued in order, then Delivered', async ({
    page,
    machine,
  }) => {
    const m = await machine('demo');
    await startSession(page, m, 'say: ready');
    await expect(page.getByText('Turn summary')).toBeVisible();
    const box = page.getByLabel('Reply to this session');
    await box.fill('ask: Deploy now? | yes | no');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(box).toHaveValue('');
    const chip = page.getByRole('button', { name: '1 question waiting' });
    await expect(chip).toBeVisible();
    // Announced where the owner is (a polite live region beside the box).
    await expect(page.locator('form.reply [aria-live="polite"]').first()).toContainText(
      '1 question waiting',
    );
    await chip.click();
    const card = page.locator('article.question');
    await expect(card).toBeFocused();
    await expect(card).toBeInViewport();

    for (const text of ['say: first after', 'say: second after']) {
      await box.fill(text);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
    }
    const list = page.getByRole('region', { name: 'Your replies' }).getByRole('listitem');
    await expect(list.filter({ hasText: 'say: first after' })).toContainText('Delivered');
    await expect(list.filter({ hasText: 'say: second after' })).toContainText('Delivered');
    const order = await list.allInnerTexts();
    expect(order.findIndex((t) => t.includes('first after'))).toBeLessThan(
      order.findIndex((t) => t.includes('second after')),
    );
    await expect(
      page.getByText('The agent reads it once what is waiting has been answered.'),
    ).toHaveCount(0); // nothing is pending any more: both are delivered
    await page.getByRole('radio', { name: 'yes' }).check();
    await page.getByRole('button', { name: 'Send answer: Deploy now?' }).click();
    await expect(said(page, 'second after')).toBeVisible();
    const texts = await page.locator('ol.transcript > li.entry').allInnerTexts();
    const first = texts.findIndex((t) => t.includes('first after'));
    expect(first).toBeGreaterThan(-1);
    expect(first).toBeLessThan(texts.findIndex((t) => t.includes('second after')));
  });
});

test.describe('U3: the transcript never shrinks, and reads well', () => {
  test('U3.1: the transcript across a turn’s end — what was on screen stays, with no gap and no false start', async ({
    page,
    machine,
  }) => {
    const m = await machine('demo');
    writeFileSync(join(m.root, 'big1.txt'), `${'A'.repeat(7000)}\n`);
    writeFileSync(join(m.root, 'big2.txt'), `${'B'.repeat(7000)}\n`);
    await startSession(
      page,
      m,
      'say: one\nsay: two\nsay: three\nask: Continue? | yes | no\nread: big1.txt\nread: big2.txt',
    );
    await expect(page.getByRole('heading', { level: 3, name: 'Continue?' })).toBeVisible();
    for (const word of ['one', 'two', 'three']) await expect(said(page, word)).toBeVisible();
    await page.getByRole('radio', { name: 'yes' }).check();
    await page.getByRole('button', { name: 'Send answer: Continue?' }).click();
    await expect(page.getByText('Turn summary')).toBeVisible();
    await expect(entries(page, /Read big2\.txt/).first()).toBeVisible();
    for (const word of ['one', 'two', 'three']) await expect(said(page, word)).toBeVisible();
    await expect(entries(page, /Read big1\.txt/).first()).toBeVisible();
    await expect(page.getByRole('button', { name: 'Load the missing messages' })).toHaveCount(0);
    await expect(page.getByText('Start of the conversation.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Load older' })).toHaveCount(0);
  });

  test('U3.2: the agent’s Markdown — line breaks, monospace code scrolling inside its block, "Show all" (still open after the transcript grows), https links only, raw HTML as text, loaded only on the session screen', async ({
    page,
    relay,
  }) => {
    const machine = await pairedTestMachine(page, relay.url);
    const markdownLoaded = () =>
      page.evaluate(() =>
        performance.getEntriesByType('resource').some((e) => /\/Markdown-[^/]*\.js$/.test(e.name)),
      );
    await nav(page, '#/');
    await expect(page.getByText('Nothing is waiting for you.')).toBeVisible();
    expect(await markdownLoaded()).toBe(false);

    machine.say({ type: 'session.snapshot', sessions: [liveSession] });
    machine.say({
      type: 'turn.final',
      sessionId: 's1',
      ok: true,
      summary: 'Tests ran:\n12 passed\n0 failed',
    });
    const code = Array.from({ length: 30 }, (_, i) => `line ${i + 1} ${'w'.repeat(150)}`).join(
      '\n',
    );
    const text = [
      'Here is **the plan**:',
      '',
      '```sh',
      code,
      '```',
      '',
      '[docs](https://example.com/docs) [trap](javascript:alert(1)) <img src=x onerror=alert(1)> <b>not bold</b>',
    ].join('\n');
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    const ask = await machine.waitFor((x) => x.type === 'transcript.get');
    machine.say({
      type: 'transcript',
      requestId: (ask as { requestId: string }).requestId,
      sessionId: 's1',
      entries: [
        { seq: 1, role: 'user', text: 'make a plan', ts: Date.now() },
        { seq: 2, role: 'assistant', text, ts: Date.now() },
      ],
    });
    await expect(page.locator('strong', { hasText: 'the plan' })).toBeVisible();
    expect(await markdownLoaded()).toBe(true);
    // SC1: the turn's summary is the timeline's last item.
    const summary = page.locator('.tl-final .tr-md');
    await expect
      .poll(() => summary.evaluate((el) => (el as HTMLElement).innerText))
      .toBe('Tests ran:\n12 passed\n0 failed');

    const pre = page.locator('.tr-code pre');
    expect(await pre.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);
    expect(await pre.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    ).toBe(true);
    await expect(pre).not.toContainText('line 13 ');
    await page.getByRole('button', { name: 'Show all (30 lines)' }).click();
    await expect(pre).toContainText('line 30 ');

    // The session moves on: the transcript is asked again and grows. The block the owner opened
    // stays open, the same element — rows are kept by their key, not rebuilt.
    await pre.evaluate((el) => el.setAttribute('data-opened-before', ''));
    const first = (ask as { requestId: string }).requestId;
    machine.say({
      type: 'session.snapshot',
      sessions: [{ ...liveSession, lastActivity: Date.now() + 1000 }],
    });
    const again = await machine.waitFor(
      (x) => x.type === 'transcript.get' && (x as { requestId: string }).requestId !== first,
    );
    machine.say({
      type: 'transcript',
      requestId: (again as { requestId: string }).requestId,
      sessionId: 's1',
      entries: [
        { seq: 1, role: 'user', text: 'make a plan', ts: Date.now() },
        { seq: 2, role: 'assistant', text, ts: Date.now() },
        { seq: 3, role: 'assistant', text: 'And one more thing.', ts: Date.now() },
      ],
    });
    await expect(page.getByText('And one more thing.')).toBeVisible();
    await expect(pre).toHaveAttribute('data-opened-before', '');
    await expect(pre).toContainText('line 30 ');

    const docs = page.getByRole('link', { name: 'docs' });
    await expect(docs).toHaveAttribute('href', 'https://example.com/docs');
    await expect(docs).toHaveAttribute('rel', 'noopener noreferrer');
    await expect(page.getByRole('link', { name: 'trap' })).toHaveCount(0);
    await expect(page.locator('.transcript img, .transcript b, .transcript script')).toHaveCount(0);
    await expect(page.getByText('<img src=x onerror=alert(1)> <b>not bold</b>')).toBeVisible();
    await expectAccessible(page, 'session transcript with Markdown');
    await machine.close();
  });
});
