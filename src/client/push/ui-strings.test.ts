import { describe, expect, it } from 'vitest';
import { PWA_STRINGS } from '../../pwa/strings.ts';
import { MACHINE_PUSH_STATES, PUSH_ERRORS } from './push-client.ts';
import { PUSH_UI_STRINGS } from './ui-strings.ts';

describe('A7: every push and install string in English and Simplified Chinese', () => {
  it('both languages have the same keys, none empty', () => {
    for (const table of [PWA_STRINGS, PUSH_UI_STRINGS]) {
      expect(Object.keys(table.zh).sort()).toEqual(Object.keys(table.en).sort());
      for (const lang of ['en', 'zh'] as const) {
        for (const text of Object.values(table[lang])) expect(text.trim()).not.toBe('');
      }
    }
  });
  it('every machine state and every error code has its words', () => {
    const keys = Object.keys(PUSH_UI_STRINGS.en);
    for (const code of [...Object.values(MACHINE_PUSH_STATES), ...Object.values(PUSH_ERRORS)]) {
      expect(keys).toContain(code);
    }
  });
});
