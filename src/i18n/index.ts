import type { Language } from '../../page-worker/language.ts';
import { en, type MessageKey } from './en.ts';

/** The BCP 47 tag (for Intl and the stored preference) of each of the app's languages. */
export const LOCALES = { en: 'en', zh: 'zh-CN' } as const satisfies Record<Language, string>;
export type Locale = (typeof LOCALES)[keyof typeof LOCALES];
export type Dictionary = Record<MessageKey, string>;

// English is in the first chunk; other languages are lazy chunks loaded before first use
// (size budget, A8). The i18n test imports every dictionary directly.
const loaders: Record<Locale, () => Promise<Dictionary>> = {
  en: () => Promise.resolve(en),
  'zh-CN': () => import('./zh.ts').then((m) => m.zh),
};
const loaded: Partial<Record<Locale, Dictionary>> = { en };

export async function loadLocale(locale: Locale): Promise<void> {
  loaded[locale] ??= await loaders[locale]();
}
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文' };

export type Params = Record<string, string | number>;
export type Translate = (key: MessageKey, params?: Params) => string;

export function translate(locale: Locale, key: MessageKey, params?: Params): string {
  const text = loaded[locale]?.[key] ?? en[key];
  return params ? text.replace(/\{(\w+)\}/g, (m, name: string) => String(params[name] ?? m)) : text;
}

/** Keys built from codes that come off the wire fall back to a generic key, never to nothing. */
export function hasKey(key: string): key is MessageKey {
  return key in en;
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
