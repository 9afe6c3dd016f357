// The app's languages (A7). One set for the page's own words, the page's notification settings
// and the worker's notification words: the page stores its choice in the push settings and the
// worker shows notifications in it. The page's i18n locale (src/i18n) is the BCP 47 tag of one
// of these languages.

export const LANGUAGES = { en: 'en', zh: 'zh' } as const;
export type Language = (typeof LANGUAGES)[keyof typeof LANGUAGES];

/** The language of a BCP 47 tag (`zh-CN`, `<html lang>`): Chinese for any `zh`, else English. */
export const languageOf = (tag: string | null | undefined): Language =>
  (tag ?? '').toLowerCase().startsWith('zh') ? LANGUAGES.zh : LANGUAGES.en;
