/// <reference lib="dom" />
import { expect, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { barrier, pairedTestMachine } from './support/phone.ts';

// SC6: a question card's text sits inside its box — the prompt, the hint, every option and its
// description wrap inside the card at 320 px with the owner's text at 200 %, in English and
// Chinese, and nothing makes the page scroll sideways.

const LONG_PROMPT =
  'Which of these configuration files should I update: /home/owner/projects/dsh-dispatch/packages/relay/config/production.settings.json or the staging one?';
const session = {
  sessionId: 's1',
  title: 'Tidy the configuration',
  cwd: '/work/repo',
  state: 'awaiting_approval',
  lastActivity: Date.now(),
  dispatched: true,
  live: true,
};

for (const lang of ['en', 'zh'] as const) {
  test(`SC6: a question card's text stays inside its box at 320 px with 200 % text (${lang})`, async ({
    page,
    relay,
  }) => {
    await page.setViewportSize({ width: 320, height: 640 });
    const machine = await pairedTestMachine(page, relay.url, 'laptop');
    try {
      if (lang === 'zh') {
        // Chinese once paired (the pairing steps read English); the reload rejoins the room.
        await page.evaluate(() => localStorage.setItem('dsh.locale', 'zh-CN'));
        await barrier(page, machine);
      }
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Page.setFontSizes', { fontSizes: { standard: 32, fixed: 26 } });
      machine.say({ type: 'session.snapshot', sessions: [session] });
      const item = (id: string, multiSelect: boolean, allowFreeText: boolean) => ({
        id,
        prompt: LONG_PROMPT,
        options: [
          {
            id: 'a',
            label: 'packages/relay/config/production.settings.json',
            description: 'The_file_the_deploy_reads_at_start_without_any_break_opportunity',
          },
          { id: 'b', label: '更新生产环境的配置文件并重新启动中继服务器' },
        ],
        multiSelect,
        allowFreeText,
      });
      machine.say({
        type: 'question.request',
        questionId: 'q1',
        sessionId: 's1',
        createdAt: Date.now(),
        items: [item('i1', false, true)],
      });
      machine.say({
        type: 'question.request',
        questionId: 'q2',
        sessionId: 's1',
        createdAt: Date.now(),
        items: [item('i1', true, false), item('i2', false, false)],
      });
      for (const screen of ['#/', `#/m/${machine.roomId}/s/s1`]) {
        await nav(page, screen);
        await expect(page.locator('#question-q1')).toBeVisible();
        await expect(page.locator('#question-q2')).toBeVisible();
        await page.evaluate(() => document.fonts.ready);
        const name = screen === '#/' ? 'inbox' : 'session';
        await page
          .locator('#question-q1')
          .screenshot({ path: test.info().outputPath(`question-${lang}-${name}.png`) });
        const outside = await page.evaluate(() => {
          const bad: string[] = [];
          for (const card of document.querySelectorAll<HTMLElement>('article.card.question')) {
            const box = card.getBoundingClientRect();
            for (const el of card.querySelectorAll<HTMLElement>('*')) {
              const r = el.getBoundingClientRect();
              if (r.width === 0 || r.height === 0) continue;
              if (r.left < box.left - 0.5 || r.right > box.right + 0.5)
                bad.push(
                  `${card.id} ${el.tagName.toLowerCase()}.${el.className}: ${Math.round(r.left)}–${Math.round(r.right)} outside ${Math.round(box.left)}–${Math.round(box.right)}`,
                );
            }
            if (card.scrollWidth > card.clientWidth + 1) bad.push(`${card.id} scrolls sideways`);
            // The question's text is inside its fieldset's border, never drawn across it (a
            // legend sits on the top border by default: a long prompt ran over the line).
            for (const set of card.querySelectorAll<HTMLElement>('fieldset')) {
              const f = set.getBoundingClientRect();
              const css = getComputedStyle(set);
              const top = f.top + parseFloat(css.borderTopWidth);
              for (const el of set.querySelectorAll<HTMLElement>('legend, h3, .hint, label')) {
                const r = el.getBoundingClientRect();
                if (r.height === 0) continue;
                if (r.top < top - 0.5 || r.bottom > f.bottom + 0.5)
                  bad.push(
                    `${card.id} ${el.tagName.toLowerCase()} ${Math.round(r.top)}–${Math.round(r.bottom)} outside its fieldset ${Math.round(top)}–${Math.round(f.bottom)}`,
                  );
              }
            }
          }
          if (document.documentElement.scrollWidth > window.innerWidth)
            bad.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px)`);
          return bad;
        });
        expect(outside, name).toEqual([]);
      }
    } finally {
      await machine.close();
    }
  });
}
