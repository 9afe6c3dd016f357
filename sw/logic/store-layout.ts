// What the page and the service worker share in IndexedDB (idb-keyval's default store,
// 'keyval-store' / 'keyval'). The page owns the pairings (src/client/pairing-store.ts writes
// PAIRINGS_KEY); the worker only reads them. docs/push.md lists every key and its writer.
// sw/ may not import src/, so these names are repeated in src/client/push/store-layout.ts and
// the e2e suite proves both sides agree by pairing in the page and opening a push in the worker.

/** PairedMachine[] — written by the app's pairing store. */
export const PAIRINGS_KEY = 'pairings';
/** PushSettings — written by the page's notification settings. */
export const PUSH_SETTINGS_KEY = 'push-settings';
/** Record<roomId, PushActivity> — written by the worker on every push it receives. */
export const PUSH_ACTIVITY_KEY = 'push-activity';
/**
 * E7: string[] of the room ids whose machine announced a presence policy — written by the page
 * (src/client/client.ts) from `machine.status`; the worker then offers only Deny on their
 * approvals (an assertion needs WebAuthn, which a service worker does not have).
 */
export const PRESENCE_ROOMS_KEY = 'presence-rooms';

export const LANGUAGES = { en: 'en', zh: 'zh' } as const;
export type Language = (typeof LANGUAGES)[keyof typeof LANGUAGES];

export type PushSettings = {
  /** Lock-screen privacy: the session title is shown only when the owner opted in. */
  showSessionTitle: boolean;
  language: Language;
};
export const DEFAULT_PUSH_SETTINGS: PushSettings = { showSessionTitle: false, language: 'en' };

export type PushActivity = {
  /** When the last push for this machine arrived (ms). */
  at: number;
  /** Its kind, or 'unreadable' when no key opened it or it was not a push we understand. */
  kind: string;
};

export function parsePushSettings(value: unknown): PushSettings {
  if (typeof value !== 'object' || value === null) return DEFAULT_PUSH_SETTINGS;
  const v = value as Record<string, unknown>;
  return {
    showSessionTitle: v.showSessionTitle === true,
    language: v.language === LANGUAGES.zh ? LANGUAGES.zh : LANGUAGES.en,
  };
}
