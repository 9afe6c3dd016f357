import { animationsDone, expect, expectAccessible, test } from './support/fixtures.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';
import { barrier, pairedTestMachine, startSession } from './support/phone.ts';
import { untilCached } from './support/stored.ts';

// U1 / E1: every card on the phone is still pending at the machine; counts, chips and cards
// agree; a waiting state without its card says why. U4.question: question cards read right.

const session = (state: string, extra: Record<string, unknown> = {}) => ({
  sessionId: 's1',
  title: 'Fix the build',
  cwd: '/work/repo',
  state,
  lastActivity: Date.now(),
  dispatched: false,
  live: true,
  ...extra,
});

test.describe('U1: cards always match the machine (E1)', () => {
  test('E1: machine restart with an open card — the card closes, the queued Allow is "not delivered" and never re-sent (the real mock machine)', async ({
    page,
    machine,
  }) => {
    const m = await machine('demo');
    await startSession(page, m, 'run: echo restarted >> ran.txt');
    const allow = page.getByRole('button', { name: ALLOW_RUN });
    await expect(allow).toBeEnabled();
    await expect(page.getByText('just now')).toBeVisible();
    // The machine stops answering (frozen), the owner taps Allow, then the machine dies and
    // comes back as a new process with the same pairing.
    m.proc.freeze();
    await allow.click();
    await expect(page.getByText('You chose: Allow')).toBeVisible();
    await m.restart({ crash: true });
    await expect(
      page.getByText(/demo restarted — no longer pending|no longer pending on demo/),
    ).toBeVisible();
    await expect(page.getByText('Your Allow was not delivered: no longer pending.')).toBeVisible();
    await expect(allow).toHaveCount(0);
    await expect(page.getByText(/Unconfirmed/)).toHaveCount(0);
    // Nothing is left to re-send: the outbox on disk is empty, and the inbox agrees.
    await nav(page, '#/');
    await expect(page.getByText('Nothing is waiting for you.')).toBeVisible();
    await expect(page.getByText(/0 waiting/)).toBeVisible();
    const outbox = await page.evaluate(
      () =>
        new Promise<unknown>((resolve) => {
          const open = indexedDB.open('keyval-store');
          open.onsuccess = () => {
            const get = open.result.transaction('keyval').objectStore('keyval').get('outbox');
            get.onsuccess = () => resolve(get.result);
          };
        }),
    );
    expect(outbox).toEqual([]);
    expect(m.deskLines(/closed: allow/)).toHaveLength(0);
  });

  test('E1 fields: a new instance closes the card with "restarted", a card absent from `open` closes, age and time left are shown', async ({
    page,
    relay,
  }) => {
    const machine = await pairedTestMachine(page, relay.url);
    const status = (instance: string) => ({
      type: 'machine.status',
      machine: 'demo',
      pluginVersion: '1',
      instance,
    });
    machine.say(status('inst-A'));
    machine.say({ type: 'session.snapshot', sessions: [session('awaiting_approval')] });
    machine.say({
      type: 'approval.request',
      approvalId: 'a1',
      sessionId: 's1',
      title: 'Run npm test',
      detail: 'npm test',
      createdAt: Date.now() - 2 * 60_000,
      expiresAt: Date.now() + 28 * 60_000 + 30_000,
    });
    machine.say({
      type: 'approval.request',
      approvalId: 'a2',
      sessionId: 's1',
      title: 'Run lint',
      detail: 'npm run lint',
      createdAt: Date.now(),
    });
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    await expect(page.getByText('2 min ago · expires in 29 min')).toBeVisible();
    await expectAccessible(page, 'session with two approvals and their age');
    // The snapshot's open list no longer has a2.
    machine.say({
      type: 'session.snapshot',
      sessions: [session('awaiting_approval')],
      open: { approvals: ['a1'], questions: [] },
    });
    // E11.4: titled as its open card was ("Run npm run lint"), not the machine's "Run lint".
    await expect(
      page.getByText('Approval “Run npm run lint”: no longer pending on demo.'),
    ).toBeVisible();
    await page.getByRole('button', { name: 'Allow once: Run npm test' }).click();
    await machine.waitFor((x) => x.type === 'approval.respond');
    // The machine restarts before confirming.
    machine.say(status('inst-B'));
    await expect(
      page.getByText('Approval “Run npm test”: demo restarted — no longer pending.'),
    ).toBeVisible();
    await expect(page.getByText('Your Allow was not delivered: no longer pending.')).toBeVisible();
    await expect(page.getByRole('button', { name: /^Allow/ })).toHaveCount(0);
    await barrier(page, machine);
    await barrier(page, machine);
    expect(machine.received.filter((x) => x.type === 'approval.respond')).toHaveLength(1);
    await machine.close();
  });

  test('U1.3: offline after a reload — counts, chips and cards agree, and the wait says why it has no card', async ({
    page,
    relay,
  }) => {
    const machine = await pairedTestMachine(page, relay.url);
    machine.say({ type: 'session.snapshot', sessions: [session('awaiting_approval')] });
    machine.say({
      type: 'approval.request',
      approvalId: 'a1',
      sessionId: 's1',
      title: 'Run npm test',
      detail: 'npm test',
      createdAt: Date.now(),
    });
    await nav(page, '#/');
    await expect(page.getByRole('button', { name: 'Allow once: Run npm test' })).toBeVisible();
    await expect(page.getByText(/1 waiting/)).toBeVisible();
    await untilCached(page, 'Fix the build');
    await machine.close();
    await page.reload();
    await expect(page.getByText(/demo offline/).first()).toBeVisible();
    await expect(page.getByText('Nothing is waiting for you.')).toHaveCount(0);
    await expect(page.getByText(/1 waiting/)).toBeVisible();
    const why = page.getByRole('link', {
      name: '“Fix the build” on demo is waiting for you. Open the app online to see the request.',
    });
    await expect(why).toBeVisible();
    await expectAccessible(page, 'inbox offline with a wait and no card');
    await why.click();
    await expect(page.getByText('Waiting — request not on this phone')).toBeVisible();
    await expect(page.getByText('Waiting for approval', { exact: true })).toHaveCount(0);
  });
});

test.describe('U4.question: question cards read right', () => {
  test('U4.question: a free-text question never says "Choose one", its text appears once, its chip is its own; options are 44×44 px targets', async ({
    page,
    relay,
  }) => {
    const machine = await pairedTestMachine(page, relay.url);
    machine.say({ type: 'session.snapshot', sessions: [session('awaiting_approval')] });
    const ask = (id: string, prompt: string, options: string[], allowFreeText: boolean) =>
      machine.say({
        type: 'question.request',
        questionId: id,
        sessionId: 's1',
        createdAt: Date.now(),
        items: [
          {
            id: 'i1',
            prompt,
            options: options.map((label, i) => ({ id: String(i), label })),
            multiSelect: false,
            allowFreeText,
          },
        ],
      });
    ask('q1', 'Name the branch', [], true);
    ask(
      'q2',
      'Deploy now?',
      ['y', 'no, and here is a much longer label that wraps on a phone'],
      false,
    );
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    const free = page.locator('#question-q1');
    await expect(free.getByRole('heading', { level: 3, name: 'Name the branch' })).toBeVisible();
    await expect(free.getByText('Name the branch')).toHaveCount(1);
    await expect(page.getByText(/Choose one/)).toHaveCount(1); // only the question with options
    await expect(free.getByText(/Choose/)).toHaveCount(0);
    await expect(page.getByText('Question waiting', { exact: true })).toBeVisible();
    await expect(page.getByText('Waiting for approval', { exact: true })).toHaveCount(0);
    await animationsDone(page);
    for (const name of ['y', 'no, and here is a much longer label that wraps on a phone']) {
      const box = await page.locator('label.choice', { hasText: name }).boundingBox();
      expect(box!.width).toBeGreaterThanOrEqual(44);
      expect(box!.height).toBeGreaterThanOrEqual(44);
    }
    await page.locator('label.choice', { hasText: /^y$/ }).click({ position: { x: 40, y: 5 } });
    await expect(page.getByRole('radio', { name: 'y', exact: true })).toBeChecked();
    await expectAccessible(page, 'session with a free-text and a choice question');
    await machine.close();
  });
});
