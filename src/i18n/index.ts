import type { Language } from '../../page-worker/language.ts';
import type { MessageKey } from './en.ts';
import { enFirst } from './en-first.ts';

/** The BCP 47 tag (for Intl and the stored preference) of each of the app's languages. */
export const LOCALES = { en: 'en', zh: 'zh-CN' } as const satisfies Record<Language, string>;
export type Locale = (typeof LOCALES)[keyof typeof LOCALES];
export type Dictionary = Record<MessageKey, string>;

// English for the first screen is in the first chunk; the English of the other screens and other
// languages are lazy chunks loaded before first use (size budget, A8). The i18n test imports
// every dictionary directly.
const english: Partial<Dictionary> = { ...enFirst };
const loaders: Record<Locale, () => Promise<Partial<Dictionary>>> = {
  en: () => Promise.resolve(english),
  'zh-CN': () => import('./zh.ts').then((m) => m.zh),
};
const loaded: Partial<Record<Locale, Partial<Dictionary>>> = { en: english };

export async function loadLocale(locale: Locale): Promise<void> {
  loaded[locale] ??= await loaders[locale]();
}

let screens: Promise<void> | null = null;
/** A8: the English strings of the screens after the first (App.tsx loads them with each screen). */
export function loadScreenStrings(): Promise<void> {
  screens ??= import('./en-screens.ts').then((m) => {
    Object.assign(english, m.enScreens);
  });
  return screens;
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

export type { MessageKey };
