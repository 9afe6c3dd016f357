import { describe, expect, it } from 'vitest';
import { compactPush } from '../../protocol/index.ts';
import { alreadyOnScreen } from './visible.ts';
import { clickPlan } from './click.ts';
import { notificationFor } from './notification.ts';
import { DEFAULT_PUSH_SETTINGS, parsePushSettings } from '../../page-worker/push-settings.ts';
import { makeRoom } from './test-support/rooms.ts';

const laptop = makeRoom('laptop');
const approvalSpec = notificationFor(
  {
    ok: true,
    room: laptop,
    push: compactPush({
      kind: 'approval',
      sessionId: 's1',
      title: 't',
      approvalId: 'a1',
      what: 'Run: ls',
    }),
  },
  parsePushSettings({ showSessionTitle: true }),
  2,
);

describe('N4: a tap opens the exact card; only Allow/Deny taps answer', () => {
  it('a tap on the body opens the approval card, never answers', () => {
    expect(clickPlan('', approvalSpec.options.data)).toEqual({
      kind: 'open',
      url: `/#/m/${laptop.roomId}/s/s1/approval/a1`,
    });
  });
  it('Allow and Deny answer that approval in that room', () => {
    expect(clickPlan('allow', approvalSpec.options.data)).toMatchObject({
      kind: 'respond',
      decision: 'allow',
      roomId: laptop.roomId,
      approvalId: 'a1',
    });
    expect(clickPlan('deny', approvalSpec.options.data)).toMatchObject({ decision: 'deny' });
  });
  it('E5: Allow on a notification that did not offer it opens the card; Deny still answers', () => {
    const private_ = notificationFor(
      {
        ok: true,
        room: laptop,
        push: compactPush({ kind: 'approval', sessionId: 's1', title: 't', approvalId: 'a1' }),
      },
      DEFAULT_PUSH_SETTINGS,
      2,
    );
    expect(clickPlan('allow', private_.options.data)).toEqual({
      kind: 'open',
      url: `/#/m/${laptop.roomId}/s/s1/approval/a1`,
    });
    expect(clickPlan('deny', private_.options.data)).toMatchObject({ kind: 'respond' });
  });
  it('an unknown action or data without an approval id opens, never answers', () => {
    expect(clickPlan('allow-all', approvalSpec.options.data).kind).toBe('open');
    expect(clickPlan('allow', { url: '/#/', roomId: laptop.roomId }).kind).toBe('open');
    expect(clickPlan('allow', null)).toEqual({ kind: 'open', url: '/#/' });
  });
  it('a notification can only lead inside the app (no other origin, no protocol-relative URL)', () => {
    expect(clickPlan('', { url: 'https://evil.example/' })).toEqual({ kind: 'open', url: '/#/' });
    expect(clickPlan('', { url: '//evil.example/' })).toEqual({ kind: 'open', url: '/#/' });
  });
});

describe('N3: skip only when a visible window already shows that session', () => {
  const opened = {
    ok: true as const,
    room: laptop,
    push: compactPush({ kind: 'done', sessionId: 's1', title: 't' }),
  };
  const origin = 'http://127.0.0.1:4173';
  it('visible window on that session (or a card in it) → skip', () => {
    expect(
      alreadyOnScreen(opened, [
        {
          url: `${origin}/#/m/${laptop.roomId}/s/s1`,
          visibilityState: 'visible',
          focused: true,
        },
      ]),
    ).toBe(true);
    expect(
      alreadyOnScreen(opened, [
        {
          url: `${origin}/#/m/${laptop.roomId}/s/s1/approval/a9`,
          visibilityState: 'visible',
          focused: false,
        },
      ]),
    ).toBe(true);
  });
  it('hidden window, another session (s10 is not s1), the inbox, or no window → show', () => {
    const show = (url: string, visibilityState = 'visible') =>
      !alreadyOnScreen(opened, [{ url, visibilityState, focused: false }]);
    expect(show(`${origin}/#/m/${laptop.roomId}/s/s1`, 'hidden')).toBe(true);
    expect(show(`${origin}/#/m/${laptop.roomId}/s/s10`)).toBe(true);
    expect(show(`${origin}/#/`)).toBe(true);
    expect(alreadyOnScreen(opened, [])).toBe(false);
  });
});
