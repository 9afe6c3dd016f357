import { LANGUAGES, type Language } from './language.ts';

// What the page's Settings › Notifications tells the worker (PUSH_SETTINGS_KEY), and what the
// worker tells the page about the pushes it received (PUSH_ACTIVITY_KEY).

export type PushSettings = {
  /** Lock-screen privacy: the session title is shown only when the owner opted in. */
  showSessionTitle: boolean;
  language: Language;
};
export const DEFAULT_PUSH_SETTINGS: PushSettings = {
  showSessionTitle: false,
  language: LANGUAGES.en,
};

export type PushActivity = {
  /** When the last push for this machine arrived (ms). */
  at: number;
  /** Its kind, or 'unreadable' when no key opened it or it was not a push we understand. */
  kind: string;
};

/**
 * Stored settings as the worker must read them: anything missing or malformed falls back to the
 * private default (no title on the lock screen, English), never to an error, so a notification
 * is always shown.
 */
export function parsePushSettings(value: unknown): PushSettings {
  if (typeof value !== 'object' || value === null) return DEFAULT_PUSH_SETTINGS;
  const v = value as Record<string, unknown>;
  return {
    showSessionTitle: v.showSessionTitle === true,
    language: v.language === LANGUAGES.zh ? LANGUAGES.zh : LANGUAGES.en,
  };
}
