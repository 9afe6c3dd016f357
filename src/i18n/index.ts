import type { Language } from '../../page-worker/language.ts';
import type { MessageKey } from './en.ts';
import { enFirst } from './en-first.ts';

/** The BCP 47 tag (for Intl and the stored preference) of each of the app's languages. */
export const LOCALES = { en: 'en', zh: 'zh-CN' } as const satisfies Record<Language, string>;
export type Locale = (typeof LOCALES)[keyof typeof LOCALES];
export type Dictionary = Record<MessageKey, string>;

// English for the first screen is in the first chunk; every language's strings of the other
// screens, and other languages, are lazy chunks loaded before first use (size budget, A8): a
// language's first part before the first paint (loadLocale), the screens' part of every loaded
// language with the first screen after the Inbox (loadScreenStrings), and from then on with the
// language itself. The i18n test imports every dictionary whole.
const english: Partial<Dictionary> = { ...enFirst };
const firstParts: Record<Locale, () => Promise<Partial<Dictionary>>> = {
  en: () => Promise.resolve(english),
  'zh-CN': () => import('./zh-first.ts').then((m) => ({ ...m.zhFirst })),
};
const screenParts: Record<Locale, () => Promise<Partial<Dictionary>>> = {
  en: () => import('./en-screens.ts').then((m) => m.enScreens),
  'zh-CN': () => import('./zh-screens.ts').then((m) => m.zhScreens),
};
const loaded: Partial<Record<Locale, Partial<Dictionary>>> = { en: english };
const loading: Partial<Record<Locale, Promise<void>>> = { en: Promise.resolve() };
const screensLoading: Partial<Record<Locale, Promise<void>>> = {};
let screensWanted = false;

const loadScreensOf = (locale: Locale): Promise<void> =>
  (screensLoading[locale] ??= screenParts[locale]().then((part) => {
    Object.assign(loaded[locale]!, part);
  }));

export async function loadLocale(locale: Locale): Promise<void> {
  await (loading[locale] ??= firstParts[locale]().then((part) => {
    loaded[locale] = part;
  }));
  if (screensWanted) await loadScreensOf(locale);
}

/** A8: the strings of the screens after the first (App.tsx loads them with each screen). */
export async function loadScreenStrings(): Promise<void> {
  screensWanted = true;
  await Promise.all((Object.keys(loaded) as Locale[]).map(loadScreensOf));
}
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文' };

export type Params = Record<string, string | number>;
export type Translate = (key: MessageKey, params?: Params) => string;

export function translate(locale: Locale, key: MessageKey, params?: Params): string {
  // A key whose part is not loaded yet shows as itself, never as nothing (A8: screens load
  // their strings before they render, so this is a defect a test sees, not a blank).
  const text = loaded[locale]?.[key] ?? english[key] ?? key;
  return params ? text.replace(/\{(\w+)\}/g, (m, name: string) => String(params[name] ?? m)) : text;
}

/** Keys built from codes that come off the wire fall back to a generic key, never to nothing. */
export function hasKey(key: string): key is MessageKey {
  return key in english;
}

export function defaultLocale(languages: readonly string[]): Locale {
  const first = languages.find((l) => /^(en|zh)\b/i.test(l));
  return first?.toLowerCase().startsWith('zh') ? LOCALES.zh : LOCALES.en;
}

export function formatTime(locale: Locale, ms: number): string {
  return new Intl.DateTimeFormat(locale, {
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  }).format(ms);
}

/** SC5: "14:02" today, "7 Dec 14:02" (by the locale) on another day, so a recent list is honest. */
export function formatWhen(locale: Locale, ms: number, now: number): string {
  const sameDay = new Date(ms).toDateString() === new Date(now).toDateString();
  if (sameDay) return formatTime(locale, ms);
  return new Intl.DateTimeFormat(locale, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  }).format(ms);
}

export type { MessageKey };
