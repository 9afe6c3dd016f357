import { describe, expect, it } from 'vitest';
import { LANGUAGES, languageOf } from './language.ts';

describe('A7: one set of languages for the page and the worker', () => {
  it('<html lang> zh, zh-CN and zh-Hans mean Chinese; anything else English', () => {
    expect(['zh', 'zh-CN', 'zh-Hans'].map(languageOf)).toEqual(['zh', 'zh', 'zh']);
    expect(['en', 'en-GB', '', null].map(languageOf)).toEqual(['en', 'en', 'en', 'en']);
  });
  it('every language is its own tag', () => {
    for (const language of Object.values(LANGUAGES)) expect(languageOf(language)).toBe(language);
  });
});
