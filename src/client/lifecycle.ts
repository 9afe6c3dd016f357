// D5 on the page side: close the relay socket a few seconds after the app is hidden, so the
// relay's "no phone socket ⇒ push" rule fires, and reconnect at once when the app is visible
// again or the network comes back.
import type { TimerHandle, Timeouts } from './socket.ts';

export const HIDDEN_CLOSE_MS = 3_000;

type Target = {
  addEventListener(type: string, fn: () => void): void;
  removeEventListener(type: string, fn: () => void): void;
};

export function watchLifecycle(options: {
  document: Target & { visibilityState: string };
  window: Target;
  timers: Timeouts;
  suspend: () => void;
  resume: () => void;
}): () => void {
  const { document: doc, window: win, timers } = options;
  let hideTimer: TimerHandle | null = null;
  const onVisibility = () => {
    if (doc.visibilityState === 'hidden') {
      hideTimer ??= timers.setTimeout(() => {
        hideTimer = null;
        options.suspend();
      }, HIDDEN_CLOSE_MS);
      return;
    }
    if (hideTimer !== null) timers.clearTimeout(hideTimer);
    hideTimer = null;
    options.resume();
  };
  const onOnline = () => options.resume();
  doc.addEventListener('visibilitychange', onVisibility);
  win.addEventListener('online', onOnline);
  return () => {
    if (hideTimer !== null) timers.clearTimeout(hideTimer);
    doc.removeEventListener('visibilitychange', onVisibility);
    win.removeEventListener('online', onOnline);
  };
}
