import { describe, expect, it } from 'vitest';
import { compactPush, type CompactPushFields } from '../../protocol/index.ts';
import { cardUrl } from './card-url.ts';
import { notificationFor, REPAIR_TAG } from './notification.ts';
import { UNREADABLE_REASONS, type OpenedPush } from './open-push.ts';
import { DEFAULT_PUSH_SETTINGS, parsePushSettings } from '../../page-worker/push-settings.ts';
import { makeRoom } from './test-support/rooms.ts';

const laptop = makeRoom('laptop');
const opened = (fields: CompactPushFields): OpenedPush => ({
  ok: true,
  room: laptop,
  push: compactPush(fields),
});
const SECRET_TITLE = 'Rotate the production database password';

describe('N3: title and body per kind, with the machine name', () => {
  it('approval: title names the machine, Deny only by default (E5), card URL of the approval', () => {
    const spec = notificationFor(
      opened({ kind: 'approval', sessionId: 's1', title: SECRET_TITLE, approvalId: 'a1' }),
      DEFAULT_PUSH_SETTINGS,
      2,
    );
    expect(spec.title).toBe('Approval needed · laptop');
    expect(spec.options.actions).toEqual([{ action: 'deny', title: 'Deny' }]);
    expect(spec.options.tag).toBe(`approval:${laptop.roomId}:a1`);
    expect(spec.options.requireInteraction).toBe(true);
    expect(spec.options.data).toMatchObject({
      url: `/#/m/${laptop.roomId}/s/s1/approval/a1`,
      roomId: laptop.roomId,
      approvalId: 'a1',
    });
  });

  it('question, done, error: their own titles, no actions, the right card', () => {
    const q = notificationFor(
      opened({ kind: 'question', sessionId: 's1', title: 't', questionId: 'q1' }),
      DEFAULT_PUSH_SETTINGS,
      2,
    );
    expect(q.title).toBe('Question · laptop');
    expect(q.options.actions).toEqual([]);
    expect(q.options.data.url).toBe(
      cardUrl({ roomId: laptop.roomId, sessionId: 's1', questionId: 'q1' }),
    );
    const done = notificationFor(
      opened({ kind: 'done', sessionId: 's1', title: 't' }),
      DEFAULT_PUSH_SETTINGS,
      2,
    );
    expect(done.title).toBe('Finished · laptop');
    expect(done.options.data.url).toBe(`/#/m/${laptop.roomId}/s/s1`);
    const error = notificationFor(
      opened({ kind: 'error', sessionId: 's1', title: 't' }),
      DEFAULT_PUSH_SETTINGS,
      2,
    );
    expect(error.title).toBe('Error · laptop');
    expect(error.options.tag).toBe(done.options.tag); // one per session: the newer replaces
  });

  it('lock-screen privacy: by default the session title is never in the notification', () => {
    const spec = notificationFor(
      opened({ kind: 'approval', sessionId: 's1', title: SECRET_TITLE, approvalId: 'a1' }),
      DEFAULT_PUSH_SETTINGS,
      2,
    );
    expect(JSON.stringify(spec)).not.toContain('production database');
    const optedIn = notificationFor(
      opened({ kind: 'approval', sessionId: 's1', title: SECRET_TITLE, approvalId: 'a1' }),
      parsePushSettings({ showSessionTitle: true }),
      2,
    );
    expect(optedIn.options.body).toBe(SECRET_TITLE);
  });

  it('where actions are unsupported (iOS: maxActions 0) an approval has none; the tap opens the card', () => {
    const spec = notificationFor(
      opened({ kind: 'approval', sessionId: 's1', title: 't', approvalId: 'a1' }),
      DEFAULT_PUSH_SETTINGS,
      0,
    );
    expect(spec.options.actions).toEqual([]);
    expect(spec.options.data.url).toContain('/approval/a1');
  });

  it('D9: an approval push without approvalId (older machine) has no actions and opens the session', () => {
    const spec = notificationFor(
      opened({ kind: 'approval', sessionId: 's1', title: 't' }),
      DEFAULT_PUSH_SETTINGS,
      2,
    );
    expect(spec.options.actions).toEqual([]);
    expect(spec.options.data.url).toBe(`/#/m/${laptop.roomId}/s/s1`);
  });

  it('unreadable → "Re-pair needed", all collapsed under one tag, opens the inbox', () => {
    const spec = notificationFor(
      { ok: false, reason: UNREADABLE_REASONS.noKeyOpens, detail: '' },
      DEFAULT_PUSH_SETTINGS,
      2,
    );
    expect(spec.title).toBe('Re-pair needed');
    expect(spec.options.tag).toBe(REPAIR_TAG);
    expect(spec.options.actions).toEqual([]);
    expect(spec.options.data.url).toBe('/#/');
  });

  it('Simplified Chinese when the app is set to it', () => {
    const spec = notificationFor(
      opened({ kind: 'approval', sessionId: 's1', title: 't', approvalId: 'a1', what: 'Run: ls' }),
      parsePushSettings({ language: 'zh', showSessionTitle: true }),
      2,
    );
    expect(spec.title).toBe('需要批准 · laptop');
    expect(spec.options.actions.map((a) => a.title)).toEqual(['允许', '拒绝']);
  });
});

describe('E5: a notification that says what it asks, and Allow only for what it shows', () => {
  const OPTED_IN = parsePushSettings({ showSessionTitle: true });
  const withWhat = (what: string) =>
    opened({ kind: 'approval', sessionId: 's1', title: SECRET_TITLE, approvalId: 'a1', what });

  it('E5: with lock-screen content allowed the body is `what` and it offers Allow and Deny', () => {
    const spec = notificationFor(withWhat('Run: npm test'), OPTED_IN, 2);
    expect(spec.options.body).toBe('Run: npm test');
    expect(spec.options.actions.map((a) => a.action)).toEqual(['allow', 'deny']);
    expect(spec.options.data.allowOffered).toBe(true);
  });

  it('E5: without it, neither `what` nor the title shows, only Deny is offered, a tap opens the card', () => {
    const spec = notificationFor(withWhat('Run: npm test'), DEFAULT_PUSH_SETTINGS, 2);
    expect(JSON.stringify(spec)).not.toContain('npm test');
    expect(spec.options.actions.map((a) => a.action)).toEqual(['deny']);
    expect(spec.options.data).not.toHaveProperty('allowOffered');
    expect(spec.options.data.url).toContain('/approval/a1');
  });

  it('E7: an approval whose Allow needs presence offers only Deny; Allow is the tap that opens the card', () => {
    const needs = opened({
      kind: 'approval',
      sessionId: 's1',
      title: SECRET_TITLE,
      approvalId: 'a1',
      what: 'Run: rm -rf build',
      presence: true,
    });
    const spec = notificationFor(needs, OPTED_IN, 2);
    expect(spec.options.body).toBe('Run: rm -rf build');
    expect(spec.options.actions.map((a) => a.action)).toEqual(['deny']);
    expect(spec.options.data).not.toHaveProperty('allowOffered');
    expect(spec.options.data.url).toContain('/approval/a1');
    // The same machine's approval that needs no presence (policy "risky", a harmless read).
    const plain = notificationFor(withWhat('Read: src/app.ts'), OPTED_IN, 2);
    expect(plain.options.actions.map((a) => a.action)).toEqual(['allow', 'deny']);
  });

  it('E5: Allow is never offered for what the notification does not show whole', () => {
    // An older machine (no `what`): the session title says nothing about the call.
    const noWhat = notificationFor(
      opened({ kind: 'approval', sessionId: 's1', title: SECRET_TITLE, approvalId: 'a1' }),
      OPTED_IN,
      2,
    );
    expect(noWhat.options.body).toBe(SECRET_TITLE);
    expect(noWhat.options.actions.map((a) => a.action)).toEqual(['deny']);
    // A `what` cut to fit: its visible start is not the whole command.
    const cut = notificationFor(withWhat(`Run: ${'x'.repeat(400)}`), OPTED_IN, 2);
    expect(cut.options.body.endsWith('…')).toBe(true);
    expect(cut.options.actions.map((a) => a.action)).toEqual(['deny']);
    // One action slot only (Deny is the safe one).
    expect(notificationFor(withWhat('Run: ls'), OPTED_IN, 1).options.actions).toEqual([
      { action: 'deny', title: 'Deny' },
    ]);
  });

  it('E5: a question shows its first prompt where allowed, and has no actions', () => {
    const q = notificationFor(
      opened({ kind: 'question', sessionId: 's1', title: 't', questionId: 'q1', what: 'Which?' }),
      OPTED_IN,
      2,
    );
    expect(q.options.body).toBe('Which?');
    expect(q.options.actions).toEqual([]);
  });
});
