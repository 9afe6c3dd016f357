// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@solidjs/testing-library';
import { createSignal } from 'solid-js';
import { afterEach, describe, expect, it } from 'vitest';
import type { PushReceipt } from '../../../protocol/index.ts';
import { makePushClient, type PushPlatform } from './push-client.ts';
import { NotificationsSettings } from './NotificationsSettings.tsx';

afterEach(cleanup);

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';

function setup(
  userAgent: string,
  standalone = false,
  language: 'en' | 'zh' = 'en',
  receipt?: () => PushReceipt | undefined,
) {
  const calls: string[] = [];
  const data = new Map<string, unknown>();
  const platform: PushPlatform = {
    supported: () => true,
    permission: () => 'default',
    requestPermission: () => {
      calls.push('requestPermission');
      return Promise.resolve('denied');
    },
    getSubscription: () => Promise.resolve(null),
    subscribe: () => Promise.reject(new Error('not reached')),
    unsubscribe: () => Promise.resolve(),
  };
  const client = makePushClient({
    platform,
    kv: {
      get: <T,>(k: string) => Promise.resolve(data.get(k) as T | undefined),
      set: (k, v) => {
        data.set(k, v);
        return Promise.resolve();
      },
    },
    rooms: () => [{ roomId: 'room-laptop-0001', relay: 'wss://relay.example' }],
    fetchVapid: () => Promise.reject(new Error('not reached')),
    send: () => true,
    now: () => 0,
  });
  render(() => (
    <NotificationsSettings
      client={client}
      machines={[
        {
          roomId: 'room-laptop-0001',
          name: 'laptop',
          get status() {
            const pushReceipt = receipt?.();
            return pushReceipt ? { pushReceipt } : null;
          },
        },
      ]}
      platform={{ userAgent, maxTouchPoints: 5, standalone }}
      language={language}
    />
  ));
  return { calls, data };
}

describe('Settings › Notifications (N1–N2)', () => {
  it('iOS in a Safari tab: explains Add to Home Screen and offers no switch yet', () => {
    setup(IPHONE);
    expect(screen.getByText('Install the app to get notifications')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Turn on notifications' })).toBeNull();
  });

  it('installed iOS app and Android: the switch; a refused permission shows its reason', async () => {
    for (const [ua, standalone] of [
      [IPHONE, true],
      [ANDROID, false],
    ] as const) {
      const { calls } = setup(ua, standalone);
      expect(screen.queryByText('Install the app to get notifications')).toBeNull();
      fireEvent.click(screen.getByRole('button', { name: 'Turn on notifications' }));
      const alert = await screen.findByRole('alert');
      expect(alert.dataset.code).toBe('permission-denied');
      expect(calls).toEqual(['requestPermission']);
      cleanup();
    }
  });

  it('in Chinese: the coach and the switch speak it', () => {
    setup(IPHONE, false, 'zh');
    expect(screen.getByText('安装应用以接收通知')).toBeTruthy();
    cleanup();
    setup(ANDROID, false, 'zh');
    expect(screen.getByRole('button', { name: '开启通知' })).toBeTruthy();
  });

  it('the lock-screen privacy switch is off by default and writes the worker’s setting', async () => {
    const { data } = setup(ANDROID);
    const box = screen.getByRole('checkbox', { name: /Show the session title/ });
    expect((box as HTMLInputElement).checked).toBe(false);
    fireEvent.click(box);
    await expect
      .poll(() => data.get('push-settings'))
      .toEqual({
        showSessionTitle: true,
        language: 'en',
      });
    expect(screen.getByText('laptop')).toBeTruthy();
  });

  it('Push delivery receipts: a machine’s undelivered notification shows with its fix, then "sent" replaces it', () => {
    const [receipt, setReceipt] = createSignal<PushReceipt | undefined>(undefined);
    // eslint-disable-next-line solid/reactivity -- read inside the machine's status getter in JSX
    setup(ANDROID, false, 'en', receipt);
    expect(document.querySelector('.push-receipt')).toBeNull();
    setReceipt({ outcome: 'no-subscribers', at: Date.UTC(2026, 10, 30, 12, 4) });
    const line = screen.getByRole('status');
    expect(line.dataset.outcome).toBe('no-subscribers');
    expect(line.dataset.tone).toBe('problem');
    expect(line.textContent).toMatch(
      /^Last notification from laptop: not delivered — no device subscribed \(.+\)/,
    );
    expect(line.textContent).toContain('Turn on notifications on this device.');
    setReceipt({ outcome: 'sent', at: Date.UTC(2026, 10, 30, 12, 9) });
    const ok = screen.getByRole('status');
    expect(ok.dataset.tone).toBe('ok');
    expect(ok.textContent).toMatch(
      /^Last notification from laptop: sent — the relay reported no failure/,
    );
    expect(ok.textContent).not.toMatch(/not delivered|Turn on/);
  });
});
