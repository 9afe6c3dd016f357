import { describe, expect, it } from 'vitest';
import {
  PAIRING_ERRORS,
  REASON_CODES,
  RELAY_ERROR_CODES,
  SESSION_STATES,
  APPROVAL_RESOLUTIONS,
  QUESTION_RESOLUTIONS,
} from '../../protocol/index.ts';
import { ACT_BLOCKS } from '../client/client.ts';
import { en } from './en.ts';
import { defaultLocale, loadLocale, translate, type Dictionary, type Locale } from './index.ts';
import { zh } from './zh.ts';

const DICTIONARIES: Record<Locale, Dictionary> = { en, 'zh-CN': zh };

// A7: every UI string and every reason code in English and Simplified Chinese.
describe('Languages: no key or code is missing in any locale', () => {
  const required = [
    ...Object.values(REASON_CODES).map((c) => `reason.${c}`),
    ...Object.values(RELAY_ERROR_CODES).map((c) => `relay.${c}`),
    ...Object.values(PAIRING_ERRORS).map((c) => `pairing.${c}`),
    ...Object.values(SESSION_STATES).map((c) => `state.${c}`),
    ...Object.values(ACT_BLOCKS).map((c) => `block.${c}`),
    ...Object.values(APPROVAL_RESOLUTIONS).map((c) => `closed.approval.${c}`),
    ...Object.values(QUESTION_RESOLUTIONS).map((c) => `closed.question.${c}`),
  ];
  for (const [locale, dict] of Object.entries(DICTIONARIES)) {
    it(`${locale} has every English key, no extra key, and no empty string`, () => {
      expect(Object.keys(dict).sort()).toEqual(Object.keys(en).sort());
      expect(Object.entries(dict).filter(([, v]) => v.trim() === '')).toEqual([]);
    });
    it(`${locale} renders every wire code (reason, relay error, pairing error, state, resolution)`, () => {
      expect(required.filter((k) => !(k in dict))).toEqual([]);
    });
    it(`${locale} keeps every {placeholder} of the English text`, () => {
      const holes = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
      const wrong = Object.keys(en).filter(
        (k) => holes(dict[k as keyof typeof en]).join() !== holes(en[k as keyof typeof en]).join(),
      );
      expect(wrong).toEqual([]);
    });
  }
  it('fills placeholders and picks Chinese for zh browsers', async () => {
    expect(translate('zh-CN', 'link.offline', { time: '09:30' })).toBe('Offline since 09:30');
    await loadLocale('zh-CN');
    expect(translate('zh-CN', 'link.offline', { time: '09:30' })).toBe('自 09:30 起离线');
    expect(defaultLocale(['zh-TW', 'en'])).toBe('zh-CN');
    expect(defaultLocale(['en-GB', 'zh-CN'])).toBe('en');
    expect(defaultLocale(['fr'])).toBe('en');
  });
});
