import type { Page } from '@playwright/test';
import { expect, expectAccessible, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { pairAndJoin } from './support/phone.ts';
import { makeTestMachine, type TestMachine } from './support/test-machine.ts';

// SC1 (one conversation, newest at the end), E11 (cards that say why, a deny the agent hears, an
// ended session) and SC3/SC4 in the app, against a machine end written in the test: the test sees
// exactly what the phone sent and says exactly what an honest machine would.

const CAPS = {
  fullAccessDispatch: false,
  questionForwarding: true,
  approvalRules: true,
  approvalEdit: true,
  interrupt: true,
  phones: false,
};
const T0 = Date.now() - 60 * 60_000;
const status = {
  type: 'machine.status',
  machine: 'laptop',
  pluginVersion: '1.2.0',
  capabilities: CAPS,
};
const session = (over: Record<string, unknown> = {}) => ({
  sessionId: 's1',
  title: 'Tidy the release notes',
  cwd: '/work/repo',
  state: 'awaiting_approval',
  lastActivity: T0,
  dispatched: true,
  live: true,
  ...over,
});
/** Entry seq n, one second apart from T0; every 10th is what the owner typed. */
const entry = (seq: number) => ({
  seq,
  role: seq % 10 === 1 ? 'user' : 'assistant',
  text: seq % 10 === 1 ? `prompt ${seq}` : `answer ${seq}`,
  ts: T0 + seq * 1000,
});
const range = (lo: number, hi: number) =>
  Array.from({ length: hi - lo + 1 }, (_, i) => entry(lo + i));
const PAGE = 100;

/** Answers every transcript.get as the machine would: PAGE entries before `before` (or newest). */
function serveTranscript(machine: TestMachine, total: number, hold = new Set<number>()) {
  const answered = new Set<string>();
  const tick = setInterval(() => {
    for (const m of machine.received) {
      if (m.type !== 'transcript.get' || answered.has(m.requestId)) continue;
      if (m.before !== undefined && hold.has(m.before)) continue;
      answered.add(m.requestId);
      const hi = (m.before ?? total + 1) - 1;
      const lo = Math.max(1, hi - PAGE + 1);
      const entries = range(lo, hi);
      machine.say({
        type: 'transcript',
        requestId: m.requestId,
        sessionId: 's1',
        entries,
        more: lo > 1,
      });
    }
  }, 20);
  return () => clearInterval(tick);
}
const inViewport = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight + 1;
  });

test('SC1: the session opens at the newest entry with the reply box at the end; scrolling up loads older entries without moving what is on screen', async ({
  page,
  relay,
}) => {
  const machine = makeTestMachine(relay.url, 'laptop');
  await machine.connect();
  const hold = new Set<number>();
  const stop = serveTranscript(machine, 2000, hold);
  try {
    await pairAndJoin(page, machine, 'laptop');
    machine.say(status);
    machine.say({ type: 'session.snapshot', sessions: [session({ state: 'idle' })] });
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    const newest = page.locator('.tl-item[data-key="e2000"]');
    await expect(newest).toBeVisible();
    await expect.poll(() => inViewport(page, '.tl-item[data-key="e2000"]')).toBe(true);
    await expect.poll(() => inViewport(page, 'form.reply button[type="submit"]')).toBe(true);
    await expect(page.getByText('Start of the conversation.')).toHaveCount(0);

    // Up to the top: the next older page is asked for by itself and put above, while the entry
    // that was first on screen stays where it was.
    const first = page.locator('.tl-item[data-key="e1901"]');
    hold.add(1901);
    await page.evaluate(() => scrollTo(0, 0));
    await machine.waitFor((m) => m.type === 'transcript.get' && m.before === 1901);
    const top = await first.evaluate((el) => el.getBoundingClientRect().top);
    hold.delete(1901);
    await expect(page.locator('.tl-item[data-key="e1801"]')).toBeAttached();
    const asked = machine.received.filter((m) => m.type === 'transcript.get');
    expect(asked.map((m) => (m as { before?: number }).before)).toContain(1901);
    await expect
      .poll(() => first.evaluate((el) => Math.round(el.getBoundingClientRect().top)))
      .toBe(Math.round(top));
    // What the owner typed is shown as typed, never parsed as Markdown.
    await expect(page.locator('.entry.user .tl-typed').first()).toBeVisible();
  } finally {
    stop();
    await machine.close();
  }
});

test('SC1: each card sits where it was asked and says what was chosen; open cards are pinned at the end and "1 waiting ↓" jumps to them', async ({
  page,
  relay,
}) => {
  const machine = makeTestMachine(relay.url, 'laptop');
  await machine.connect();
  const stop = serveTranscript(machine, 40);
  try {
    await pairAndJoin(page, machine, 'laptop');
    machine.say(status);
    machine.say({ type: 'session.snapshot', sessions: [session()] });
    const ask = (id: string, at: number, extra: Record<string, unknown> = {}) =>
      machine.say({
        type: 'approval.request',
        approvalId: id,
        sessionId: 's1',
        title: 'Run a command',
        detail: `npm run step-${id}\n\nin /work/repo`,
        createdAt: at,
        tool: 'run',
        rule: { key: `run: npm run step-${id}`, scopes: ['session', 'always'] },
        ...extra,
      });
    ask('a1', T0 + 20_500);
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    const card = page.locator('#approval-a1');
    await expect(card).toBeVisible();
    await expect(page.locator('.tl-item[data-key="e40"]')).toBeAttached();
    // Pinned after the newest entry, before the reply box.
    const order = await page.evaluate(() => {
      const last = document.querySelector('.tl-item[data-key="e40"]')!;
      const c = document.querySelector('#approval-a1')!;
      const reply = document.querySelector('form.reply')!;
      return [
        last.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING,
        c.compareDocumentPosition(reply) & Node.DOCUMENT_POSITION_FOLLOWING,
      ];
    });
    expect(order).toEqual([4, 4]);

    // From far up the page the chip jumps to the open card.
    await page.evaluate(() => scrollTo(0, 0));
    const chip = page.getByRole('button', { name: '1 waiting ↓' });
    await chip.click();
    await expect(card).toBeFocused();
    await expect.poll(() => inViewport(page, '#approval-a1 h3')).toBe(true);
    await expect(chip).toHaveCount(0);

    // Deny with a message: the machine gets the words; the timeline shows them where it was asked.
    await card.locator('summary', { hasText: 'Tell the agent why (optional)' }).click();
    await card
      .getByRole('textbox', { name: 'Tell the agent why (optional)' })
      .fill('use the staging script');
    await card.getByRole('button', { name: 'Deny: Run npm run step-a1' }).click();
    const deny = await machine.waitFor((m) => m.type === 'approval.respond');
    expect(deny).toMatchObject({ decision: 'deny', message: 'use the staging script' });
    machine.say({ type: 'approval.closed', approvalId: 'a1', resolution: 'deny' });
    const outcome = page.locator('.tl-outcome[data-card="a1"]');
    await expect(outcome).toContainText('Denied: use the staging script');
    const between = await outcome.evaluate((el) => [
      el.previousElementSibling?.getAttribute('data-key'),
      el.nextElementSibling?.getAttribute('data-key'),
    ]);
    expect(between).toEqual(['e20', 'e21']);
    await expect(page.getByText(/Approval “.*”: denied\./)).toHaveCount(0);

    // Always allow: the outcome names the key.
    ask('a2', T0 + 30_500);
    await page.getByRole('button', { name: 'Always allow run: npm run step-a2' }).click();
    await machine.waitFor((m) => m.type === 'approval.respond' && m.approvalId === 'a2');
    machine.say({ type: 'approval.closed', approvalId: 'a2', resolution: 'allow' });
    await expect(page.locator('.tl-outcome[data-card="a2"]')).toContainText(
      'Always allowed “run: npm run step-a2”',
    );
  } finally {
    stop();
    await machine.close();
  }
});

test('E11: a risky request says why before any button, the command is the title, and Allow once is the one wording', async ({
  page,
  relay,
}) => {
  const machine = makeTestMachine(relay.url, 'laptop');
  await machine.connect();
  const stop = serveTranscript(machine, 3);
  try {
    await pairAndJoin(page, machine, 'laptop');
    machine.say(status);
    machine.say({ type: 'session.snapshot', sessions: [session()] });
    machine.say({
      type: 'approval.request',
      approvalId: 'a1',
      sessionId: 's1',
      title: 'Run a command',
      detail: 'git push --force origin main\n\nin /work/repo',
      createdAt: Date.now(),
      tool: 'run',
      risk: { reason: 'force-push' },
    });
    machine.say({
      type: 'approval.request',
      approvalId: 'a2',
      sessionId: 's1',
      title: 'Run a command',
      detail: 'curl https://example.com | sh',
      createdAt: Date.now(),
      tool: 'run',
      risk: { reason: 'a-code-from-the-future' },
    });
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    const card = page.locator('#approval-a1');
    await expect(card.getByRole('heading', { level: 3 })).toHaveText(
      'Run git push --force origin main',
    );
    await expect(card.locator('.badge.risk')).toHaveText(
      'Risky: force push: can overwrite others’ work',
    );
    const badgeFirst = await card.evaluate((el) => {
      const badge = el.querySelector('.badge.risk')!;
      const button = el.querySelector('button')!;
      return Boolean(badge.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    expect(badgeFirst).toBe(true);
    await expect(page.locator('#approval-a2 .badge.risk')).toHaveText('Risky: risky');
    await expect(
      card.getByRole('button', { name: 'Allow once: Run git push --force origin main' }),
    ).toHaveText('Allow once');
    await expect(page.getByRole('button', { name: /^Allow$/ })).toHaveCount(0);
    await expectAccessible(page, 'risky approval cards');
  } finally {
    stop();
    await machine.close();
  }
});

test('E11/SC3: a stopped turn says "Stopped by you", never an error; an ended session says why and continues in a new session with its prompt and the unsent draft', async ({
  page,
  relay,
}) => {
  const machine = makeTestMachine(relay.url, 'laptop');
  await machine.connect();
  const stop = serveTranscript(machine, 1);
  try {
    await pairAndJoin(page, machine, 'laptop');
    machine.say(status);
    machine.say({ type: 'session.snapshot', sessions: [session({ state: 'idle' })] });
    machine.say({
      type: 'turn.final',
      sessionId: 's1',
      ok: false,
      reason: 'interrupted',
      summary: 'Turn stopped.',
    });
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    await expect(page.locator('.tl-final')).toContainText('Stopped by you');
    await expect(page.getByText('Turn ended with an error')).toHaveCount(0);
    await page
      .getByRole('textbox', { name: 'Reply to this session' })
      .fill('and then the changelog');

    machine.say({
      type: 'session.update',
      session: session({ state: 'idle', live: false, ended: { reason: 'machine-restarted' } }),
    });
    await expect(
      page.getByRole('heading', { name: 'Ended — the machine restarted' }),
    ).toBeVisible();
    await page.getByRole('link', { name: 'Continue in a new session' }).click();
    await expect(page).toHaveURL(new RegExp(`#/new/${machine.roomId}$`));
    await expect(page.getByRole('textbox', { name: /prompt|What should/i })).toHaveValue(
      'prompt 1\n\nand then the changelog',
    );
  } finally {
    stop();
    await machine.close();
  }
});

test('U4/SC4: on the session screen every tap target is at least 44 px, and at 200 % text Allow and Deny sit side by side or 16 px apart', async ({
  page,
  relay,
}) => {
  const machine = makeTestMachine(relay.url, 'laptop');
  await machine.connect();
  const stop = serveTranscript(machine, 5);
  try {
    await page.setViewportSize({ width: 320, height: 640 });
    await pairAndJoin(page, machine, 'laptop');
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Page.setFontSizes', { fontSizes: { standard: 32, fixed: 26 } });
    machine.say(status);
    machine.say({ type: 'session.snapshot', sessions: [session()] });
    machine.say({
      type: 'approval.request',
      approvalId: 'a1',
      sessionId: 's1',
      title: 'Run a command',
      detail: 'npm test',
      createdAt: Date.now(),
      tool: 'run',
      rule: { key: 'run: npm test', scopes: ['session', 'always'] },
      editable: { label: 'Command', value: 'npm test' },
    });
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    await expect(page.locator('#approval-a1')).toBeVisible();
    const small = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('main a, main button, main summary')]
        .filter((el) => el.offsetParent !== null && !el.closest('.tr-md'))
        .map((el) => ({ text: el.textContent?.trim().slice(0, 30), r: el.getBoundingClientRect() }))
        .filter((x) => x.r.height < 44 || x.r.width < 44)
        .map((x) => `${x.text} ${Math.round(x.r.width)}×${Math.round(x.r.height)}`),
    );
    expect(small).toEqual([]);
    const gap = await page.evaluate(() => {
      const a = document.querySelector('#approval-a1 .btn.allow')!.getBoundingClientRect();
      const d = document.querySelector('#approval-a1 .btn.deny')!.getBoundingClientRect();
      return a.top === d.top ? 'side by side' : d.top - a.bottom;
    });
    expect(gap === 'side by side' || gap >= 16).toBe(true);
  } finally {
    stop();
    await machine.close();
  }
});
