/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Code inside page.evaluate runs in the browser: DOM types for it (the rest of e2e/ is Node).
import { AxeBuilder } from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { animationsDone } from './support/animations.ts';
import {
  go,
  inState,
  isApproval,
  isQuestion,
  pairApp,
  startAppWorld,
  type AppWorld,
  type WorldMachine,
} from './support/app-world.ts';

// U4: the layout holds on every phone — 320 and 390 px, landscape, the owner's text at 200 %,
// dark, Chinese. One relay and one mock machine for the whole file; scripted sessions put the app
// in each state (docs/mock-agent.md).

let world: AppWorld;
let laptop: WorldMachine;
const s = { approval: '', approvalId: '', steps: '', failed: '', done: '' };

test.beforeAll(async () => {
  test.setTimeout(120_000);
  world = await startAppWorld();
  laptop = await world.addMachine('laptop');
  // A long title (the default demo: a question, then `run: ls -la`).
  s.approval = await laptop.dispatch(
    'Check the build and deploy it to the staging cluster when the tests pass, then post a short summary of what changed to the team channel',
    isQuestion,
  );
  await laptop.answerFirst(s.approval, isApproval);
  s.approvalId = String(laptop.phone.messages.find((m) => isApproval(m, s.approval))!.approvalId);
  // Fourteen steps that do not collapse into "×N".
  s.steps = await laptop.dispatch(
    `${'list: .\nread: missing-file.txt\n'.repeat(7)}say: done`,
    inState('done'),
  );
  s.failed = await laptop.dispatch('say: Trying\nfail: the tests failed', inState('error'));
});
test.afterAll(async () => {
  await world?.close();
});

const sessionHash = (id: string) => `#/m/${laptop.roomId}/s/${id}`;

/** The owner's browser text size (Chromium's default font size), as phones set it. */
async function textSize(page: Page, percent: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Page.setFontSizes', {
    fontSizes: { standard: (16 * percent) / 100, fixed: (13 * percent) / 100 },
  });
  await cdp.detach();
}

type Box = { top: number; bottom: number; left: number; right: number };

const PHONES = [
  { name: '320 px at 200 % text', width: 320, height: 568, text: 200 },
  { name: 'landscape 568 × 320', width: 568, height: 320, text: 100 },
  { name: 'landscape 844 × 390 at 200 % text', width: 844, height: 390, text: 200 },
] as const;

/**
 * Runs in the page: brings each decision button into view every way a browser does (focus, and
 * scrollIntoView start/center/end/nearest), from above and from below, letting the page settle for
 * two frames after each scroll (the decision bar pins itself on the next frame). Returns every case
 * where the button was not wholly in view below the header with nothing drawn over it.
 */
function bringIntoView() {
  const frames = () =>
    new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))));
  const problem = (b: HTMLElement, how: string) => {
    const header = document.querySelector('header.bar')!.getBoundingClientRect();
    const r = b.getBoundingClientRect();
    const inset = 4;
    const points: [number, number][] = [
      [r.left + inset, r.top + inset],
      [r.right - inset, r.top + inset],
      [r.left + inset, r.bottom - inset],
      [r.right - inset, r.bottom - inset],
      [(r.left + r.right) / 2, (r.top + r.bottom) / 2],
    ];
    const covered = points.filter(([x, y]) => {
      const hit = document.elementFromPoint(x, y);
      return !hit || !b.contains(hit);
    }).length;
    if (r.top >= header.bottom - 0.5 && r.bottom <= innerHeight + 0.5 && covered === 0) return [];
    return [
      `${b.textContent} after ${how}: top ${r.top}, bottom ${r.bottom}, header ${header.bottom}, covered ${covered}`,
    ];
  };
  return (async () => {
    const out: string[] = [];
    for (const button of document.querySelectorAll<HTMLElement>('.card.approval .btn')) {
      for (const from of [0, document.documentElement.scrollHeight]) {
        const side = from ? 'below' : 'above';
        const start = async () => {
          (document.activeElement as HTMLElement | null)?.blur();
          window.scrollTo(0, from);
          await frames();
        };
        await start();
        button.focus();
        await frames();
        out.push(...problem(button, `focus from ${side}`));
        for (const block of ['start', 'center', 'end', 'nearest'] as const) {
          await start();
          button.scrollIntoView({ block });
          await frames();
          out.push(...problem(button, `scrollIntoView ${block} from ${side}`));
        }
      }
    }
    return out;
  })();
}

/** Runs in the page: scroll positions where Allow is on screen before the whole command has been. */
function allowBeforeCommand() {
  return (async () => {
    const seen: number[] = [];
    // From the card just below the viewport to the card just above it, in steps small enough
    // to land inside the card's head (kind, title, session) at every text size.
    const card = document.querySelector('.card.approval')!.getBoundingClientRect();
    const top = card.top + scrollY;
    const step = Math.max(24, innerHeight / 6);
    for (let y = Math.max(0, top - innerHeight); y <= top + card.height; y += step) {
      window.scrollTo(0, y);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))));
      const allow = document.querySelector('.card.approval .btn.allow')!.getBoundingClientRect();
      const detail = document.querySelector('.card.approval .detail')!.getBoundingClientRect();
      if (allow.bottom > 0 && allow.top < innerHeight && detail.bottom > allow.top) seen.push(y);
    }
    return seen;
  })();
}

test('U4.1: at 320 px with 200 % text and in landscape the header is one line, Allow and Deny scrolled into view are never under it or anything else, and Allow is never on screen before what it allows', async ({
  page,
}) => {
  await pairApp(page, [laptop]);
  // The notification's deep link focuses the card.
  await go(page, `${sessionHash(s.approval)}/approval/${s.approvalId}`);
  await expect(page.locator('.card.approval .btn.allow')).toBeEnabled();
  // E2/E3: the machine offers "Allow for this session" and Edit for `ls -la`; they sit above the
  // pinned bar and are checked with Allow and Deny.
  await expect(page.locator('.card.approval .scope-choices .btn')).toHaveCount(1);
  await expect(page.getByRole('button', { name: /^Edit before allowing/ })).toBeVisible();
  for (const phone of PHONES) {
    await page.setViewportSize({ width: phone.width, height: phone.height });
    await textSize(page, phone.text);
    const title = await page.evaluate(() => {
      const h1 = document.querySelector('header.bar h1')!;
      return {
        height: h1.getBoundingClientRect().height,
        lineHeight: parseFloat(getComputedStyle(h1).lineHeight),
        cut: h1.scrollWidth > h1.clientWidth,
      };
    });
    expect(title.height, `${phone.name}: the header title is one line`).toBeLessThan(
      1.5 * title.lineHeight,
    );
    expect(title.cut, `${phone.name}: the long title ends in an ellipsis`).toBe(true);
    expect(await page.evaluate(bringIntoView), phone.name).toEqual([]);
    expect(await page.evaluate(allowBeforeCommand), phone.name).toEqual([]);
  }
  // The whole title is in the page body: at 320 px and 200 % text three lines of it, and a button
  // opens the rest (a long title filled the first screen there).
  await page.setViewportSize({ width: 320, height: 568 });
  await textSize(page, 200);
  const pageTitle = page.locator('.page-title');
  // SC4: the machine ends a long title after a whole word, with an ellipsis.
  await expect(pageTitle).toContainText('when the tests pass, then…');
  const lines = () =>
    pageTitle.evaluate(
      (el) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight),
    );
  expect(await lines()).toBeLessThan(3.5);
  await page.getByRole('button', { name: 'Show the whole title' }).click();
  await expect(page.getByRole('button', { name: 'Show less of the title' })).toHaveAttribute(
    'aria-expanded',
    'true',
  );
  expect(await lines()).toBeGreaterThan(3.5);
});

test('U4.2: the steps trail is a list whose items wrap as whole boxes, never overlapping (320 px, 100 % and 200 % text)', async ({
  page,
}) => {
  await page.setViewportSize({ width: 320, height: 568 });
  await pairApp(page, [laptop]);
  await go(page, sessionHash(s.steps));
  await expect(page.locator('ol.trail > li')).toHaveCount(14);
  const cdp = await page.context().newCDPSession(page);
  for (const percent of [100, 200]) {
    await cdp.send('Page.setFontSizes', {
      fontSizes: { standard: (16 * percent) / 100, fixed: (13 * percent) / 100 },
    });
    // Every box a step draws: the item and its pseudo-elements (a list marker included: CSS
    // markers are not elements, DevTools still gives their boxes).
    const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
    type Node = {
      nodeId: number;
      nodeName: string;
      attributes?: string[];
      children?: Node[];
      pseudoElements?: Node[];
    };
    const trails: Node[] = [];
    const walk = (n: Node) => {
      if (n.nodeName === 'OL' && (n.attributes ?? []).join(' ').includes('trail')) trails.push(n);
      (n.children ?? []).forEach(walk);
    };
    walk(root as Node);
    expect(trails).toHaveLength(1);
    const boxOf = async (nodeId: number): Promise<Box> => {
      const q = (await cdp.send('DOM.getBoxModel', { nodeId })).model.border;
      return { left: q[0]!, top: q[1]!, right: q[4]!, bottom: q[5]! };
    };
    const trail = await boxOf(trails[0]!.nodeId);
    const items: Box[][] = [];
    for (const li of (trails[0]!.children ?? []).filter((c) => c.nodeName === 'LI')) {
      const boxes = [await boxOf(li.nodeId)];
      for (const p of li.pseudoElements ?? []) boxes.push(await boxOf(p.nodeId));
      items.push(boxes.filter((b) => b.right > b.left && b.bottom > b.top));
    }
    const overlaps: string[] = [];
    const meet = (a: Box, b: Box) =>
      a.left < b.right - 0.5 &&
      b.left < a.right - 0.5 &&
      a.top < b.bottom - 0.5 &&
      b.top < a.bottom - 0.5;
    items.forEach((boxes, i) =>
      items.slice(i + 1).forEach((other, k) => {
        if (boxes.some((a) => other.some((b) => meet(a, b)))) overlaps.push(`${i}×${i + k + 1}`);
      }),
    );
    expect(overlaps, `overlapping steps at ${percent} %`).toEqual([]);
    const outside = items
      .flat()
      .filter((b) => b.left < trail.left - 0.5 || b.right > trail.right + 0.5);
    expect(outside, `boxes outside the trail at ${percent} %`).toEqual([]);
    const rows = new Set(items.map((boxes) => Math.round(boxes[0]!.top)));
    expect(rows.size, `the trail wraps at ${percent} %`).toBeGreaterThan(1);
  }
  await cdp.detach();
});

type Screen = { name: string; hash: string; ready: string };

/**
 * Runs in the page: opens each screen (an in-app hash change, as a tap does), waits for what shows
 * it is drawn, and lists what reaches past the phone's right edge — the page itself, or any
 * element outside a scrolling box of its own. Measured against the phone's width, not innerWidth:
 * a mobile browser widens its layout viewport to fit content that overflows, so innerWidth grows
 * with the very overflow the test looks for.
 */
function sidewaysOnEveryScreen({ screens, width }: { screens: Screen[]; width: number }) {
  const clipped = (el: Element) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    }
    return false;
  };
  const drawn = async (selector: string) => {
    const end = Date.now() + 10_000;
    while (document.querySelector(selector) === null) {
      if (Date.now() > end) return false;
      await new Promise((r) => requestAnimationFrame(() => r(null)));
    }
    return true;
  };
  return (async () => {
    const out: string[] = [];
    for (const screen of screens) {
      if (location.hash !== screen.hash) {
        const seen = new Promise((r) => addEventListener('hashchange', r, { once: true }));
        location.hash = screen.hash;
        await seen;
      }
      if (!(await drawn(screen.ready))) {
        out.push(`${screen.name}: not drawn (${screen.ready})`);
        continue;
      }
      const page = Math.max(innerWidth, document.documentElement.scrollWidth) - width;
      if (page > 0) out.push(`${screen.name}: the page is ${page} px too wide`);
      for (const el of document.body.querySelectorAll('*')) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > width + 0.5 && !clipped(el))
          out.push(
            `${screen.name}: ${el.tagName.toLowerCase()}.${el.className} ends at ${r.right}`,
          );
      }
    }
    return out;
  })();
}

test('U4.7: no screen scrolls sideways at 320 or 390 px, light or dark, English or Chinese; dark passes axe colour contrast (WCAG AA)', async ({
  page,
}) => {
  await pairApp(page, [laptop]);
  const screens: Screen[] = [
    { name: 'inbox', hash: '#/', ready: '.card.approval .btn.allow:enabled' },
    { name: 'machine', hash: `#/m/${laptop.roomId}`, ready: '.presence.ok' },
    { name: 'rules', hash: `#/m/${laptop.roomId}/rules`, ready: '.hint' },
    {
      name: 'session with an approval',
      hash: sessionHash(s.approval),
      ready: '.card.approval .btn.allow:enabled',
    },
    { name: 'session with steps', hash: sessionHash(s.steps), ready: 'ol.trail' },
    { name: 'failed session', hash: sessionHash(s.failed), ready: '.chip.state-error' },
    { name: 'new session', hash: `#/new/${laptop.roomId}`, ready: 'textarea' },
    { name: 'pair', hash: '#/pair', ready: 'textarea' },
    { name: 'settings', hash: '#/settings', ready: '#notifications h2' },
  ];
  for (const locale of ['en', 'zh-CN']) {
    await page.evaluate((l) => localStorage.setItem('dsh.locale', l), locale);
    await page.reload();
    for (const width of [320, 390])
      for (const theme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height: 740 });
        await page.emulateMedia({ colorScheme: theme });
        expect(
          await page.evaluate(sidewaysOnEveryScreen, { screens, width }),
          `${width} px, ${theme}, ${locale}`,
        ).toEqual([]);
      }
  }
  // Dark colours on the busiest screens: cards, chips, rows, buttons, the transcript and the
  // reply box (Settings in dark is checked whole in e2e/shell.spec.ts).
  for (const screen of [screens[0]!, screens[4]!]) {
    await go(page, screen.hash);
    await expect(page.locator(screen.ready).first()).toBeVisible();
    await animationsDone(page);
    const contrast = await new AxeBuilder({ page }).withRules(['color-contrast']).analyze();
    expect(
      contrast.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`)),
      `colour contrast, dark: ${screen.name}`,
    ).toEqual([]);
  }
});

test('U4.5: the inbox explains the first step, then offers New session first, lists sessions with their state (SC5: a failed one among them, not only what waits), and every row is one tap target with a chevron', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.locator('.first-run')).toContainText(
    'Pair a machine: run npm start on your computer and open the link it prints',
  );
  await pairApp(page, [laptop]);
  const actions = page.locator('section[aria-labelledby="inbox-machines"] .actions .btn');
  await expect(actions).toHaveText(['New session', 'Pair a machine']);
  await expect(actions.first()).toHaveClass(/primary/);
  await expect(actions.last()).not.toHaveClass(/primary/);
  // SC5: the failed session is listed among the machine's sessions with its state (no longer a
  // "Failed" section of its own: every recent session has a row, newest first).
  const failed = page
    .locator('section[aria-labelledby="inbox-sessions"] a.row')
    .filter({ hasText: 'fail: the tests failed' });
  await expect(failed).toHaveCount(1);
  await expect(failed.locator('.chip.state-error')).toContainText('Error');
  // One snapshot of every row: the list re-renders as the machine's snapshot arrives, so rows
  // measured one by one can be replaced between two calls (a null box, not a layout fault).
  await animationsDone(page);
  const rows = await page.locator('ul.list > li > a.row').evaluateAll((links) =>
    links.map((link) => {
      const row = link.getBoundingClientRect();
      const item = link.parentElement!.getBoundingClientRect();
      const chevron = [...link.querySelectorAll('svg.icon')].at(-1)?.getBoundingClientRect();
      return {
        text: link.textContent,
        widthGap: Math.abs(row.width - item.width),
        height: row.height,
        chevron: chevron !== undefined && chevron.width > 0 && chevron.height > 0,
      };
    }),
  );
  expect(rows.length, 'the machine row and the session rows').toBeGreaterThanOrEqual(4);
  for (const row of rows) {
    expect(row, `row "${row.text}"`).toMatchObject({ widthGap: 0, chevron: true });
    expect(row.height, `row "${row.text}"`).toBeGreaterThanOrEqual(44);
  }
  await failed.click();
  await expect(page.locator('.page-title')).toHaveText('say: Trying fail: the tests failed');
});

test('U4.4: Settings puts the notifications switch and the lock-screen option on rows of their own, and asking for persistent storage always answers', async ({
  page,
}) => {
  await page.goto('/#/settings');
  const turnOn = page.getByRole('button', { name: 'Turn on notifications' });
  const privacy = page.locator('.notifications-settings__privacy');
  await animationsDone(page);
  const [button, option] = await Promise.all([turnOn.boundingBox(), privacy.boundingBox()]);
  expect(option!.y).toBeGreaterThanOrEqual(button!.y + button!.height);
  expect(option!.height).toBeGreaterThanOrEqual(44);
  await page.getByRole('button', { name: 'Ask for persistent storage' }).click();
  await expect(page.locator('section[aria-labelledby="set-storage"] [role="status"]')).toHaveText(
    /Granted|The browser said no|cannot be asked/,
  );
});

test("U4: a session opened straight from another session's screen shows its own transcript", async ({
  page,
}) => {
  await pairApp(page, [laptop]);
  await go(page, sessionHash(s.failed));
  await expect(page.locator('.transcript .entry').first()).toContainText('say: Trying');
  await go(page, sessionHash(s.steps));
  await expect(page.locator('.transcript .entry').first()).toContainText('list: .');
});

test('U4.7: at 320 px with 200 % text a chip whose words wrap is a rounded box, not an oval cutting its lines, and chips that wrap stay 8 px apart', async ({
  page,
}) => {
  await pairApp(page, [laptop]);
  await page.setViewportSize({ width: 320, height: 568 });
  // Kept attached: the text size lasts while its DevTools session does.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Page.setFontSizes', { fontSizes: { standard: 32, fixed: 26 } });
  await page.reload();
  const measure = () =>
    page.locator('.chip').evaluateAll((chips) =>
      chips.map((chip) => {
        const box = chip.getBoundingClientRect();
        const style = getComputedStyle(chip);
        const line = parseFloat(style.lineHeight);
        const parent = chip.parentElement!;
        const siblings = parent.classList.contains('chips')
          ? [...parent.querySelectorAll(':scope > .chip')].map((c) => c.getBoundingClientRect())
          : [];
        // The closest a sibling chip comes, on its own row or beside this one.
        const apart = siblings
          .filter((b) => b.top !== box.top || b.left !== box.left)
          .map((b) =>
            Math.max(
              b.top - box.bottom,
              box.top - b.bottom,
              b.left - box.right,
              box.left - b.right,
            ),
          );
        return {
          text: chip.textContent,
          lines: Math.round((box.height - 4) / line),
          corner: Math.min(parseFloat(style.borderTopLeftRadius), box.height / 2),
          line,
          apart: Math.min(1000, ...apart),
        };
      }),
    );
  for (const [hash, ready] of [
    ['#/', '.list.sessions .chip.state-awaiting_approval'],
    [`#/m/${laptop.roomId}/s/${s.approval}`, '.chips .chip.state-awaiting_approval'],
  ] as const) {
    await go(page, hash);
    await expect(page.locator(ready).first()).toBeVisible({ timeout: 20_000 });
    await page.evaluate(() => document.fonts.ready);
    const chips = await measure();
    expect(chips.filter((c) => c.lines > 1).length, `${hash}: a chip wraps`).toBeGreaterThan(0);
    for (const c of chips) {
      expect(c.corner, `${hash} "${c.text}" (${c.lines} lines)`).toBeLessThanOrEqual(c.line);
      expect(c.apart, `${hash} "${c.text}"`).toBeGreaterThanOrEqual(8);
    }
  }
});
