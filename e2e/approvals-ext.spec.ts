import { expect, expectAccessible, pairByCode, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { makeTestMachine, type TestMachine } from './support/test-machine.ts';

// E2–E4 in the app, against a machine end written in the test (test-machine.ts): the test sees
// exactly what the phone sent. The same stories against the mock machine, where the edited
// command really runs and Stop really ends a process group, are in approvals-machine.spec.ts.

const CAPS = {
  fullAccessDispatch: false,
  questionForwarding: true,
  approvalRules: true,
  approvalEdit: true,
  interrupt: true,
  phones: false,
};
const status = (capabilities?: typeof CAPS) => ({
  type: 'machine.status',
  machine: 'laptop',
  pluginVersion: '1.2.0',
  ...(capabilities ? { capabilities } : {}),
});
const session = (state: string) => ({
  sessionId: 's1',
  title: 'Fix the build',
  cwd: '/work/repo',
  state,
  lastActivity: Date.now(),
  dispatched: true,
  live: true,
});
const request = (id: string, extra: Record<string, unknown> = {}) => ({
  type: 'approval.request',
  approvalId: id,
  sessionId: 's1',
  title: 'Run a command',
  detail: 'npm test',
  createdAt: Date.now(),
  tool: 'run',
  rule: { key: 'run: npm test', scopes: ['session', 'always'] },
  editable: { label: 'Command', value: 'npm test' },
  ...extra,
});
const sent = (machine: TestMachine, type: string) =>
  machine.received.filter((m) => m.type === type) as unknown as Record<string, unknown>[];

test('E2, E3, E4: scopes say what they cover, Rules revoke, Edit sends exactly the edit, Stop takes a second tap', async ({
  page,
  relay,
}) => {
  const machine = makeTestMachine(relay.url, 'laptop');
  await machine.connect();
  await pairByCode(page, machine.code, 'laptop');
  machine.say(status(CAPS));
  machine.say({ type: 'session.snapshot', sessions: [session('awaiting_approval')] });
  machine.say(request('a1'));
  await nav(page, `#/m/${machine.roomId}/s/s1/approval/a1`);

  // E2: Allow once is the primary; each remembered scope says what it covers.
  await expect(page.getByRole('button', { name: 'Allow once: Run npm test' })).toBeVisible();
  const forSession = page.getByRole('button', { name: 'Allow for this session' });
  await expect(forSession).toHaveAccessibleDescription(
    'Also allows every “run: npm test” in this session without asking, until the session ends.',
  );
  await expect(page.getByRole('button', { name: 'Always allow run: npm test' })).toBeVisible();
  await expectAccessible(page, 'approval card with scopes and Edit');
  await forSession.click();
  await expect(page.getByText('You chose: Allow for this session')).toBeVisible();
  expect(await machine.waitFor((m) => m.type === 'approval.respond')).toMatchObject({
    approvalId: 'a1',
    decision: 'allow',
    scope: 'session',
  });
  machine.say({ type: 'approval.closed', approvalId: 'a1', resolution: 'allow' });

  // E3: Edit opens the command in a monospace field; the card shows what will run.
  machine.say(request('a2'));
  await nav(page, `#/m/${machine.roomId}/s/s1/approval/a2`);
  await page.getByRole('button', { name: 'Edit before allowing: Run npm test' }).click();
  const field = page.getByRole('textbox', { name: 'Command' });
  await expect(field).toHaveCSS('font-family', /mono/i);
  await field.fill('npm test -- --bail');
  await expect(page.getByLabel('Will run')).toHaveText('npm test -- --bail');
  // An edited allow is never remembered: the scope buttons are gone while editing.
  await expect(page.getByRole('button', { name: 'Allow for this session' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Allow edited: Run npm test' }).click();
  await expect(page.getByText('You chose: Allow edited')).toBeVisible();
  expect(
    await machine.waitFor((m) => m.type === 'approval.respond' && m.approvalId === 'a2'),
  ).toMatchObject({ decision: 'allow', edited: 'npm test -- --bail' });
  machine.say({ type: 'approval.closed', approvalId: 'a2', resolution: 'allow', edited: true });

  // E2: Machine › Rules asks for the list, shows uses, Revoke sends rule.revoke once.
  await nav(page, `#/m/${machine.roomId}`);
  await page.getByRole('link', { name: /Remembered approvals/ }).click();
  const get = await machine.waitFor((m) => m.type === 'rules.get');
  const rule = {
    ruleId: 'r1',
    key: 'run: npm test',
    tool: 'run',
    scope: 'session',
    sessionId: 's1',
    createdAt: Date.now(),
    uses: 3,
  };
  machine.say({
    type: 'rules',
    requestId: (get as { requestId: string }).requestId,
    rules: [rule],
  });
  await expect(page.getByText('This session only · Used 3 times', { exact: false })).toBeVisible();
  await expectAccessible(page, 'rules screen');
  await page.getByRole('button', { name: 'Revoke: run: npm test' }).click();
  await expect(page.getByText('Revoking…')).toBeVisible();
  const revoke = await machine.waitFor((m) => m.type === 'rule.revoke');
  expect(revoke).toMatchObject({ ruleId: 'r1' });
  machine.say({ type: 'rules', requestId: (revoke as { requestId: string }).requestId, rules: [] });
  await expect(page.getByText('No remembered approvals on this machine.')).toBeVisible();

  // E4: Stop on the running session: the first tap arms, the second sends.
  machine.say({ type: 'session.update', session: session('running') });
  await nav(page, `#/m/${machine.roomId}/s/s1`);
  await page.getByRole('button', { name: 'Stop: Fix the build' }).click();
  expect(sent(machine, 'session.interrupt')).toEqual([]);
  await page.getByRole('button', { name: 'Tap again to stop: Fix the build' }).click();
  await expect(page.getByText('You chose: Stop')).toBeVisible();
  expect(await machine.waitFor((m) => m.type === 'session.interrupt')).toMatchObject({
    sessionId: 's1',
  });
  machine.say({
    type: 'turn.final',
    sessionId: 's1',
    ok: false,
    summary: 'interrupted',
    reason: 'interrupted',
  });
  machine.say({ type: 'session.update', session: { ...session('idle') } });
  // E4/E11: a stop the owner asked for is "Stopped by you", never an error.
  await expect(page.locator('.tl-final')).toContainText('Stopped by you');
  await expect(page.getByRole('button', { name: /^Stop/ })).toHaveCount(0);
  expect(sent(machine, 'session.interrupt')).toHaveLength(1);
  await machine.close();
});

test('EC: a machine without the capabilities sees exactly today’s app: Allow/Deny, no Edit, no Stop, no Rules, a plain respond', async ({
  page,
  relay,
}) => {
  const machine = makeTestMachine(relay.url, 'laptop');
  await machine.connect();
  await pairByCode(page, machine.code, 'laptop');
  machine.say(status());
  machine.say({ type: 'session.snapshot', sessions: [session('awaiting_approval')] });
  // Even a request carrying the E2/E3 fields (a machine that sends them without announcing).
  machine.say(request('a1'));
  await nav(page, `#/m/${machine.roomId}/s/s1/approval/a1`);
  await expect(page.getByRole('button', { name: 'Allow once: Run npm test' })).toBeVisible();
  // E11: "Allow once" is the one wording for the plain allow too; no remembered scope.
  await expect(page.getByRole('button', { name: /for this session|Always/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Edit/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Stop/ })).toHaveCount(0);
  await page.getByRole('button', { name: 'Allow once: Run npm test' }).click();
  const respond = await machine.waitFor((m) => m.type === 'approval.respond');
  expect(Object.keys(respond).sort()).toEqual(
    ['approvalId', 'decision', 'requestId', 'ts', 'type', 'v'].sort(),
  );
  await nav(page, `#/m/${machine.roomId}`);
  await expect(page.getByRole('link', { name: /Remembered approvals/ })).toHaveCount(0);
  await nav(page, `#/m/${machine.roomId}/rules`);
  await expect(page.getByText('This machine does not remember approvals.')).toBeVisible();
  for (const type of ['rules.get', 'rule.revoke', 'session.interrupt'])
    expect(sent(machine, type)).toEqual([]);
  await machine.close();
});
