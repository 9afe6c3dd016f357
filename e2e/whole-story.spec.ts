import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { parsePairing, roomKeys } from '../protocol/index.ts';
import { APP_ORIGIN } from '../playwright.config.ts';
import { makeFakeSubscriber, startFakePushService } from '../testkit/push-service.ts';
import { nav } from './support/nav.ts';
import { startProcess, tempDir, type Proc } from './support/processes.ts';
import { joinRoom } from './support/room-socket.ts';
import {
  clearNotifications,
  pushDelivery,
  runNotificationAction,
  waitForController,
  writeKeyval,
} from './support/sw.ts';

// Q3, the whole story as real processes: the relay (with a local fake push service), the
// mock machine hosting the device lane over a git workspace, a device executor enrolled with the
// command the machine prints, and the built app in Chromium with a phone viewport. Two latencies
// are recorded and printed: approval.request sent → card visible, and push → notification.
// Stand-ins, as in the push suite (docs/push.md): the browser's subscription is fabricated (no
// push service is reachable here) and the push reaches the worker through the DevTools protocol.

const DEVICE_MARK = 'on-device';
// One JSON line per run, appended: `npm run bench:app` reads the lines its own runs added.
const LATENCIES_FILE = path.resolve('test-results/whole-story-latencies.jsonl');

test('The whole story: pair by link, dispatch with a worktree, approve a command that runs on the device, answer, read, reply; then the app hides and Allow is taken from the push notification', async ({
  page,
  context,
}) => {
  test.setTimeout(180_000);
  const dir = tempDir('whole-story');
  const procs: Proc[] = [];
  const pushService = await startFakePushService();
  try {
    // The demo workspace: a git repository with a first commit, so worktrees work.
    const workspace = path.join(dir.path, 'workspace');
    mkdirSync(workspace);
    writeFileSync(path.join(workspace, 'README.md'), '# demo\n');
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: workspace,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'e2e',
          GIT_AUTHOR_EMAIL: 'e2e@e2e.invalid',
          GIT_COMMITTER_NAME: 'e2e',
          GIT_COMMITTER_EMAIL: 'e2e@e2e.invalid',
        },
      });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'first');

    const relay = startProcess('relay', 'relay/main.ts', [
      ...['--host', '127.0.0.1', '--port', '0', '--data-dir', path.join(dir.path, 'relay')],
      ...['--vapid-subject', 'mailto:e2e@example.invalid', '--log-level', 'warn'],
      ...['--unsafe-allow-push-origin', pushService.origin, '--no-rate-limits'],
    ]);
    procs.push(relay);
    const relayUrl = (await relay.waitForLine(/relay listening on (ws:\/\/\S+)/))[1]!;

    const machine = startProcess('machine', 'machine/main.ts', [
      ...['--relay', relayUrl, '--name', 'laptop', '--root', workspace],
      ...['--state-dir', path.join(dir.path, 'machine'), '--app-url', APP_ORIGIN],
      ...['--device-lane-port', '0'],
    ]);
    procs.push(machine);
    stampLines(machine);
    const link = (await machine.waitForLine(/Pairing link: (\S+)/))[1]!;
    // H6: the printed command carries the single-use token and reads the user credential from
    // its owner-only file; both go to the executor in its environment, never as arguments.
    const [, token, credentialFile, server, workspaceArg] = await machine.waitForLine(
      /DSH_DEVICE_TOKEN=(\S+) DSH_DEVICE_USER_TOKEN="\$\(cat '([^']+)'\)" npm run device -- enroll --server (\S+) --workspace '([^']+)'$/,
    );
    await machine.waitForLine(/Type "help" for desk commands/);

    // The device executor, enrolled with the printed command. DEVICE_MARK is in its environment
    // only (the machine was started without it), so `echo [$DEVICE_MARK]` says where it ran.
    const keyDir = path.join(dir.path, 'device-key');
    const enrolling = startProcess(
      'enroll',
      'device/main.ts',
      ['enroll', '--server', server!, '--workspace', workspaceArg!, '--key-dir', keyDir],
      {
        DSH_DEVICE_TOKEN: token!,
        DSH_DEVICE_USER_TOKEN: readFileSync(credentialFile!, 'utf8').trim(),
      },
    );
    procs.push(enrolling);
    await enrolling.waitForLine(/Enrolled as dev_/);
    process.env.DEVICE_MARK = DEVICE_MARK;
    const device = startProcess('device', 'device/main.ts', ['serve', '--key-dir', keyDir]);
    delete process.env.DEVICE_MARK;
    procs.push(device);
    await machine.waitForLine(/device-online/);

    // 1. The phone pairs by link.
    await context.grantPermissions(['notifications'], { origin: APP_ORIGIN });
    await page.goto('/');
    await waitForController(page);
    await page.goto(link);
    await expect(page.getByText('Machine: laptop')).toBeVisible();
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'laptop' })).toBeVisible();

    // 2. Dispatch into the demo workspace with a worktree; the approval card's arrival is
    //    stamped in the page the moment it enters the DOM, its sending by the machine's own `ts`
    //    on the message (one host, one wall clock; the machine's printed line reaches this
    //    process later than the relay reaches the page on a loaded machine).
    const pairing = parsePairing(new URL(link).hash.replace(/^#pair=/, ''));
    if (!pairing.ok) throw new Error(pairing.message);
    const { roomId, key } = roomKeys(pairing.value.secretBytes);
    const listener = await joinRoom(relayUrl, roomId, 'phone', key);
    await page.evaluate(() => {
      const w = globalThis as unknown as { __cardAt?: number };
      const card = 'button[aria-label^="Allow once: Run echo"]';
      new MutationObserver((_, observer) => {
        if (document.querySelector(card) === null) return;
        w.__cardAt = Date.now();
        observer.disconnect();
      }).observe(document, { subtree: true, childList: true });
    });
    await nav(page, '#/new');
    await expect(page.getByLabel('Folder')).toHaveValue(workspace);
    await page.getByLabel('Run in a new git worktree').check();
    await page
      .getByLabel('Prompt')
      .fill(
        `run: echo [$DEVICE_MARK] > device.txt; echo ran [$DEVICE_MARK]\nask: Ship it? | yes | no\nsay: all done`,
      );
    await page.getByRole('button', { name: 'Start session' }).click();
    const allow = page.getByRole('button', { name: /^Allow once: Run echo/ });
    await expect(allow).toBeEnabled();
    const request = await listener.waitForMessage((m) => m.type === 'approval.request');
    const sentAt = Number(request.ts);
    await listener.close();
    const cardAt = await page.evaluate(
      () => (globalThis as unknown as { __cardAt?: number }).__cardAt ?? null,
    );

    // 3. Approve: the command runs on the device executor, in the session's worktree.
    await allow.click();
    await expect(page.getByRole('heading', { level: 3, name: 'Ship it?' })).toBeVisible();
    await page.getByRole('radio', { name: 'yes' }).check();
    await page.getByRole('button', { name: 'Send answer: Ship it?' }).click();

    // 4. Steps and the final summary.
    await expect(page.getByText('Turn summary')).toBeVisible();
    await expect(page.getByText(`ran [${DEVICE_MARK}]`).first()).toBeVisible();
    await expect(page.getByText(/Asked "Ship it\?": yes/).first()).toBeVisible();
    const worktrees = path.join(workspace, '.dsh-worktrees');
    const [worktree] = readdirSync(worktrees);
    expect(readFileSync(path.join(worktrees, worktree!, 'device.txt'), 'utf8')).toBe(
      `[${DEVICE_MARK}]\n`,
    );

    // 5. The transcript, read back after a reload, and a reply to the live session.
    await page.reload();
    // SC1.1: a tool call is its name and one line, its output monospace below it.
    const tool = page.locator('.tl-tool', { hasText: 'echo [$DEVICE_MARK] > device.txt' });
    await expect(tool.locator('.chip')).toHaveText('run');
    await expect(tool.locator('.tl-tool-what')).toHaveText(
      'echo [$DEVICE_MARK] > device.txt; echo ran [$DEVICE_MARK]',
    );
    await expect(tool.locator('pre')).toHaveText(`ran [${DEVICE_MARK}]\n(exit 0)`);
    await page.getByLabel('Reply to this session').fill('say: second turn');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByText('second turn').first()).toBeVisible();

    // 6. The push half. The browser's subscription cannot reach a push service here: a
    //    fabricated one is registered for the room through a phone socket, as in push-path.
    const subscriber = makeFakeSubscriber(pushService.endpoint('phone-1'));
    const registrar = await joinRoom(relayUrl, roomId, 'phone', key);
    registrar.send({ kind: 'push-subscribe', room: roomId, subscription: subscriber.subscription });
    await registrar.close();
    const delivery = await pushDelivery(context, page, APP_ORIGIN);
    // E5: Allow from a notification only where it may show what it allows.
    await writeKeyval(page, 'push-settings', { showSessionTitle: true, language: 'en' });
    await clearNotifications(page);

    // The session asks first, so the approval comes after the app is gone.
    const questionFrom = machine.lines.length;
    await page
      .getByLabel('Reply to this session')
      .fill('ask: Continue? | go | stop\nrun: echo [$DEVICE_MARK] > after-push.txt');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByRole('heading', { level: 3, name: 'Continue?' })).toBeVisible();
    const question = (await lineAfter(machine, /▶ question (\S+)/, questionFrom)).match;
    // The app is hidden (the worker would not notify over a visible window on that session):
    // another screen, then visibility hidden; the app closes its socket (D5).
    await nav(page, '#/');
    const offlineFrom = machine.lines.length;
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      Object.defineProperty(document, 'hidden', { value: true, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await lineTime(machine, /phone-presence: no phone online/, offlineFrom);
    machine.write(`answer ${question[1]} 1`);

    const sent = await pushService.nextRequest().catch((e: Error) => {
      throw new Error(`${e.message}; the machine said:\n${machine.lines.slice(-15).join('\n')}`);
    });
    expect(sent.body.toString('latin1')).not.toContain('after-push');
    const deliveredAt = Date.now();
    await delivery.deliver(subscriber.decrypt(sent.body).toString('utf8'));
    await expect.poll(() => notifications(page)).toHaveLength(1);
    const [shown] = await notifications(page);
    expect(shown).toMatchObject({
      title: 'Approval needed · laptop',
      actions: ['allow', 'deny'],
    });
    const result = await runNotificationAction(page, shown!.tag, 'allow');
    expect(result).toMatchObject({ ok: true, outcome: 'allowed' });
    await machine.waitForLine(/approval \S+ closed: allow/);
    await expect
      .poll(() => {
        try {
          return readFileSync(path.join(worktrees, worktree!, 'after-push.txt'), 'utf8');
        } catch {
          return '';
        }
      })
      .toBe(`[${DEVICE_MARK}]\n`);
    await delivery.close();

    const latencies = {
      approvalToCardMs: cardAt === null ? null : cardAt - sentAt,
      pushToNotificationMs: shown!.timestamp - deliveredAt,
      measuredAt: new Date().toISOString(),
    };
    mkdirSync(path.dirname(LATENCIES_FILE), { recursive: true });
    appendFileSync(LATENCIES_FILE, JSON.stringify(latencies) + '\n');
    console.log(
      `whole story: approval.request → card visible ${latencies.approvalToCardMs} ms; push → notification ${latencies.pushToNotificationMs} ms`,
    );
    expect(latencies.approvalToCardMs).not.toBeNull();
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await pushService.close();
    dir.remove();
  }
});

/** Arrival time (this process's clock) of every line `proc` prints, index for index. */
const stamps = new WeakMap<Proc, number[]>();
function stampLines(proc: Proc): void {
  const times: number[] = [];
  const stamp = () => {
    while (times.length < proc.lines.length) times.push(Date.now());
  };
  // Registered after processes.ts's own listeners, so the new lines are already in proc.lines.
  proc.child.stdout!.on('data', stamp);
  proc.child.stderr!.on('data', stamp);
  stamps.set(proc, times);
}

/** When the first line matching `pattern` at or after index `from` arrived. */
async function lineTime(
  proc: Proc,
  pattern: RegExp,
  from: number,
  timeoutMs = 30_000,
): Promise<number> {
  return (await lineAfter(proc, pattern, from, timeoutMs)).at;
}

/** The first line matching `pattern` at or after index `from`, with its arrival time. */
async function lineAfter(
  proc: Proc,
  pattern: RegExp,
  from: number,
  timeoutMs = 30_000,
): Promise<{ match: RegExpExecArray; at: number }> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const i = proc.lines.findIndex((l, n) => n >= from && pattern.test(l));
    if (i >= 0) {
      return { match: pattern.exec(proc.lines[i]!)!, at: stamps.get(proc)?.[i] ?? Date.now() };
    }
    if (Date.now() > end) throw new Error(`no line matching ${pattern} within ${timeoutMs} ms`);
    // The lines arrive on the event loop; this yields to it between looks.
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function notifications(page: import('@playwright/test').Page) {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({
      title: n.title,
      tag: n.tag,
      timestamp: (n as Notification & { timestamp: number }).timestamp,
      actions: [...((n as unknown as { actions?: Array<{ action: string }> }).actions ?? [])].map(
        (a) => a.action,
      ),
    }));
  });
}
