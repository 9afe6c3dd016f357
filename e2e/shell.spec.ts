import { animationsDone, expect, expectAccessible, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';

// The app shell without any machine: every screen by URL, languages, themes, zoom, targets.
test.describe('App shell (A4, A7)', () => {
  test('every screen is reachable by URL, renders without console errors and passes axe', async ({
    page,
  }) => {
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const screens: [string, string][] = [
      ['/#/', 'Inbox'],
      ['/#/pair', 'Pair a machine'],
      ['/#/new', 'New session'],
      ['/#/settings', 'Settings'],
      ['/#/m/unknownroom1', 'Machine'],
      ['/#/m/unknownroom1/s/s1/approval/a1', 'Transcript'],
      ['/#/nope', 'Page not found'],
    ];
    for (const [url, heading] of screens) {
      await page.goto(url);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      await expectAccessible(page, url);
    }
    await page.goto('/');
    await expect(page.getByRole('link', { name: 'Pair a machine' })).toBeVisible();
    expect(errors).toEqual([]);
  });

  test('Simplified Chinese and dark theme from Settings, kept across a reload', async ({
    page,
  }) => {
    await page.goto('/#/settings');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('zh-CN');
    await expect(page.getByRole('heading', { level: 1, name: '设置' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await page.getByRole('radio', { name: '深色' }).check();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expectAccessible(page, 'settings zh dark');
    await page.reload();
    await nav(page, '#/');
    await expect(page.getByRole('heading', { level: 1, name: '收件箱' })).toBeVisible();
    await expect(page.getByRole('link', { name: '配对机器' })).toBeVisible();
    await expectAccessible(page, 'inbox zh dark');
  });

  test('touch targets are at least 44 px and 200 % text zoom at 360 px needs no sideways scrolling', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    for (const url of ['/#/', '/#/pair', '/#/settings']) {
      await page.goto(url);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      // Measured once the screen's entry animations are over: a box caught mid-animation (scaled)
      // measured 43.9 px on a loaded machine.
      await animationsDone(page);
      // Radios and checkboxes are targeted through their 44 px tall labels.
      const small = await page.evaluate(() => {
        type El = {
          getBoundingClientRect(): { width: number; height: number };
          textContent: string | null;
        };
        const doc = (
          globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<El> } }
        ).document;
        return Array.from(
          doc.querySelectorAll(
            'button, a.btn, a.icon-btn, a.row, select, label.check, label.choice',
          ),
        )
          .map((el) => ({ r: el.getBoundingClientRect(), t: (el.textContent ?? '').trim() }))
          .filter(({ r }) => r.width > 0 && (r.height < 44 || r.width < 44))
          .map(({ t, r }) => `"${t}" ${Math.round(r.width)}x${Math.round(r.height)}`);
      });
      expect(small, url).toEqual([]);
      await page.evaluate(() => {
        (
          globalThis as unknown as {
            document: { documentElement: { style: { fontSize: string } } };
          }
        ).document.documentElement.style.fontSize = '200%';
      });
      const overflow = await page.evaluate(() => {
        const d = (
          globalThis as unknown as {
            document: { documentElement: { scrollWidth: number; clientWidth: number } };
          }
        ).document.documentElement;
        return d.scrollWidth - d.clientWidth;
      });
      expect(overflow, `${url} at 200 %`).toBeLessThanOrEqual(0);
    }
  });

  test('reduced motion: cards do not animate', async ({ page }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto('/');
    const animation = await page.evaluate(() => {
      const g = globalThis as unknown as {
        document: {
          createElement(t: string): { className: string };
          body: { append(e: unknown): void };
        };
        getComputedStyle(e: unknown): { animationName: string };
      };
      const el = g.document.createElement('article');
      el.className = 'card';
      g.document.body.append(el);
      return g.getComputedStyle(el).animationName;
    });
    expect(animation).toBe('none');
  });
});
