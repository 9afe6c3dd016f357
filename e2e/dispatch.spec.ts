import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appUrl, expect, expectAccessible, pairByCode, test } from './support/fixtures.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';
import { makeTestMachine } from './support/test-machine.ts';

// Against the mock machine (a real child process) through the real relay.
test.describe('Dispatch and live sessions (mock machine)', () => {
  test('dispatch into an allowed root, approve the command once, watch the turn finish', async ({
    page,
    machine,
  }) => {
    const m = await machine('laptop');
    await pairByCode(page, m.pairingCode, 'laptop');
    await page.getByRole('link', { name: 'Start a session' }).click();
    await expect(page.getByLabel('Folder')).toHaveValue(/dsh-e2e-machine-root/);
    await expectAccessible(page, 'new session');
    await page.getByLabel('Prompt').fill('run: echo applied >> ran.txt\nsay: all done');
    await expect(page.getByText(/\d+ \/ 8192 characters · \d+ \/ 10240 bytes/)).toBeVisible();
    await page.getByRole('button', { name: 'Start session' }).click();
    // dispatch.result ok → the session opens; the approval card arrives live.
    const allow = page.getByRole('button', { name: ALLOW_RUN });
    await expect(allow).toBeEnabled();
    await expect(page.getByText('Started from phone')).toBeVisible();
    await expectAccessible(page, 'session with a live approval');
    await allow.dblclick();
    await expect(page.getByText('Turn summary')).toBeVisible();
    await expect(page.getByText('Done', { exact: true })).toBeVisible();
    expect(readFileSync(join(m.root, 'ran.txt'), 'utf8')).toBe('applied\n');
    expect(m.deskLines(/approval \S+ closed: allow/)).toHaveLength(1);
  });

  test('questions: single choice, multi-select and free text are answered from the phone', async ({
    page,
    machine,
  }) => {
    const m = await machine('laptop');
    await pairByCode(page, m.pairingCode, 'laptop');
    await nav(page, '#/new');
    await page
      .getByLabel('Prompt')
      .fill(
        'ask: Which database? | pg | lite\nask-multi: Which checks? | lint | types | unit\nask-text: Name the branch\nsay: thanks',
      );
    await page.getByRole('button', { name: 'Start session' }).click();

    await expect(page.getByRole('heading', { level: 3, name: 'Which database?' })).toBeVisible();
    await expectAccessible(page, 'session with a question');
    await page.getByRole('radio', { name: 'lite' }).check();
    await page.getByRole('button', { name: 'Send answer: Which database?' }).click();
    await m.proc.waitForLine(/question \S+ closed: phone/, 10_000);

    await expect(page.getByRole('heading', { level: 3, name: 'Which checks?' })).toBeVisible();
    await page.getByRole('checkbox', { name: 'lint' }).check();
    await page.getByRole('checkbox', { name: 'unit' }).check();
    await page.getByRole('button', { name: 'Send answer: Which checks?' }).click();

    await expect(page.getByRole('heading', { level: 3, name: 'Name the branch' })).toBeVisible();
    await page.getByLabel('Your answer').fill('feature/phone');
    await page.getByRole('button', { name: 'Send answer: Name the branch' }).click();

    await expect(page.getByText('Turn summary')).toBeVisible();
    await expect(page.getByText(/Asked "Which database\?": lite/).first()).toBeVisible();
    await expect(page.getByText(/Asked "Which checks\?": lint, unit/).first()).toBeVisible();
    await expect(page.getByText(/Asked "Name the branch": feature\/phone/).first()).toBeVisible();
    expect(m.deskLines(/question \S+ closed: phone/)).toHaveLength(3);
  });

  test('a question answered at the computer leaves the phone with a note', async ({
    page,
    machine,
  }) => {
    const m = await machine('laptop');
    await pairByCode(page, m.pairingCode, 'laptop');
    await nav(page, '#/new');
    await page.getByLabel('Prompt').fill('ask: Deploy now? | yes | no');
    await page.getByRole('button', { name: 'Start session' }).click();
    await expect(page.getByRole('heading', { level: 3, name: 'Deploy now?' })).toBeVisible();
    const line = await m.proc.waitForLine(/▶ question (\S+)/);
    m.proc.write(`answer ${line[1]} no`);
    await expect(page.getByText('Question “Deploy now?”: answered on the computer.')).toBeVisible();
    await expect(page.getByRole('heading', { level: 3, name: 'Deploy now?' })).toHaveCount(0);
  });

  test('transcript paging: newest page first, "Load older" until the start, reply to a live session', async ({
    browser,
    page: first,
    machine,
  }) => {
    const m = await machine('laptop');
    writeFileSync(join(m.root, 'a.txt'), `${'A'.repeat(7000)}\n`);
    writeFileSync(join(m.root, 'b.txt'), `${'B'.repeat(7000)}\n`);
    await pairByCode(first, m.pairingCode, 'laptop');
    await nav(first, '#/new');
    await first.getByLabel('Prompt').fill('read: a.txt\nread: b.txt');
    await first.getByRole('button', { name: 'Start session' }).click();
    await expect(first.getByText('Turn summary')).toBeVisible();
    const session = new URL(first.url()).hash;
    // A second phone has read nothing of this session yet (U3: the first keeps what it read, even
    // across a reload): it gets the newest page first.
    const context = await browser.newContext({ baseURL: appUrl });
    const page = await context.newPage();
    await pairByCode(page, m.pairingCode, 'laptop');
    // E9: a second phone waits until the owner lets it in — here from the desk.
    const asked = await m.proc.waitForLine(/asks to join — phones approve (\S+)/);
    m.proc.write(`phones approve ${asked[1]}`);
    await m.proc.waitForLine(/approved phone \S+: it may act from now on/);
    await nav(page, session);
    // SC1.1: a read is a tool call in the timeline: its name, the file, the text folded below.
    await expect(page.locator('.tl-tool').filter({ hasText: /read\s*b\.txt/ })).toBeVisible();
    await expectAccessible(page, 'session transcript');
    // SC1.3: the session opens at its newest entry; scrolling up to the top of the timeline asks
    // for the older page by itself.
    await page.evaluate(() => scrollTo(0, 0));
    await expect(page.getByText('Start of the conversation.')).toBeVisible();
    await expect(page.locator('.tl-tool').filter({ hasText: /read\s*a\.txt/ })).toBeVisible();
    await expect(page.getByRole('listitem').filter({ hasText: 'read: a.txt' })).toBeVisible();

    await page.getByLabel('Reply to this session').fill('say: second turn');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByText('second turn').first()).toBeVisible();
    await context.close();
  });

  test('full access: hidden unless the machine allows it, then behind a warning and a typed confirmation', async ({
    page,
    machine,
  }) => {
    const plain = await machine('plain');
    const open = await machine('open', { allowFullAccess: true });
    await pairByCode(page, plain.pairingCode, 'plain');
    await pairByCode(page, open.pairingCode, 'open');
    await nav(page, '#/new');
    await page.getByRole('combobox', { name: 'Machine' }).selectOption({ label: 'plain' });
    // SC4: the refused option says what it means and where it is turned on.
    await expect(
      page.getByText(/Full access is off on this machine: every tool call/),
    ).toBeVisible();
    await expect(page.getByLabel('Full access (danger)')).toHaveCount(0);

    await page.getByRole('combobox', { name: 'Machine' }).selectOption({ label: 'open' });
    const toggle = page.getByLabel('Full access (danger)');
    await expect(toggle).not.toBeChecked();
    await toggle.check();
    await expect(page.getByText(/Full access runs the agent without sandbox/)).toBeVisible();
    await page.getByLabel('Prompt').fill('say: careful');
    const start = page.getByRole('button', { name: 'Start session' });
    await expect(start).toBeDisabled();
    await page.getByLabel('Type FULL to confirm').fill('FULL');
    await expect(start).toBeEnabled();
    await expectAccessible(page, 'new session with full access');
    await start.click();
    await expect(page.getByText('Full access', { exact: true })).toBeVisible();
  });

  test('a note is information, never failure; a refusal shows its reason in the app language', async ({
    page,
    relay,
    machine,
  }) => {
    const m = await machine('laptop');
    // The second machine is a test machine: the mock machine's UI gates prevent every refusal.
    const tm = makeTestMachine(relay.url, 'strict');
    await tm.connect();
    await pairByCode(page, m.pairingCode, 'laptop');
    await pairByCode(page, tm.code, 'strict');
    await nav(page, '#/settings');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('zh-CN');
    await nav(page, `#/new/${tm.roomId}`);
    await nav(page, '#/');
    await nav(page, '#/new');
    await page.getByRole('combobox', { name: '机器' }).selectOption({ label: 'laptop' });
    await page.getByLabel('在新的 git worktree 中运行').check();
    await page.getByLabel('提示词').fill('say: hi');
    await page.getByRole('button', { name: '启动会话' }).click();
    await expect(
      page.getByText('提示：未使用 worktree 运行：该文件夹不是 git 仓库。'),
    ).toBeVisible();
    await expect(page.locator('.banner.info')).toBeVisible();
    await expect(page.getByText(/机器拒绝了请求/)).toHaveCount(0);
    await page.getByRole('link', { name: '打开会话' }).click();
    await expect(page.getByText('已完成')).toBeVisible();

    tm.say({
      type: 'machine.status',
      machine: 'strict',
      pluginVersion: '0.1.0',
      allowedRoots: ['/w'],
    });
    await nav(page, `#/new/${tm.roomId}`);
    await page.getByLabel('提示词').fill('say: hi');
    await page.getByRole('button', { name: '启动会话' }).click();
    const request = await tm.waitFor((x) => x.type === 'dispatch.request');
    expect(request).toMatchObject({ cwd: '/w', worktree: false, prompt: 'say: hi' });
    expect((request as { access?: string }).access).toBeUndefined();
    tm.say({
      type: 'dispatch.result',
      requestId: (request as { requestId: string }).requestId,
      ok: false,
      error: 'cwd not allowed',
      reason: 'cwd-not-allowed',
    });
    await expect(page.getByText('机器拒绝了请求：此文件夹不在机器允许的文件夹中。')).toBeVisible();
    await expectAccessible(page, 'new session refused, zh');
    await tm.close();
  });
});
