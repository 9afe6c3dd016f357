// The app icon's badge counts what waits for the owner (approvals and questions) on every screen,
// where the platform has the Badging API (installed PWAs on Chromium, Home Screen apps on iOS).
export type BadgeApi = {
  setAppBadge?: (count: number) => Promise<void>;
  clearAppBadge?: () => Promise<void>;
};

export type AppBadge = { show(count: number): void };

export function makeAppBadge(api: BadgeApi): AppBadge {
  let shown: number | null = null;
  return {
    show(count) {
      // The client changes state many times a second while a session streams; the badge only
      // when the count does.
      if (count === shown) return;
      shown = count;
      const done = count > 0 ? api.setAppBadge?.(count) : api.clearAppBadge?.();
      // Refused outside an installed app: the badge is a convenience, the inbox is the truth.
      done?.catch(() => undefined);
    },
  };
}
