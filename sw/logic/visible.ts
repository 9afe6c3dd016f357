import { showsSession } from './card-url.ts';
import type { OpenedPush } from './open-push.ts';

export type WindowFacts = { url: string; visibilityState: string; focused: boolean };

/**
 * N3: a notification is skipped only when a window the user is looking at already shows
 * that very session. Anything else (hidden window, other session, unreadable push) is shown.
 */
export function alreadyOnScreen(opened: OpenedPush, windows: readonly WindowFacts[]): boolean {
  if (!opened.ok) return false;
  return windows.some(
    (w) =>
      w.visibilityState === 'visible' &&
      showsSession(w.url, opened.room.roomId, opened.push.sessionId),
  );
}
