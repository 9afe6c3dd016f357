import { describe, expect, it } from 'vitest';
import { DEFAULT_PUSH_SETTINGS, parsePushSettings } from './push-settings.ts';

describe('N3: the worker reads the page’s push settings, and nothing stored makes them less private', () => {
  it('nothing stored, or not an object: the private default (no title on the lock screen, English)', () => {
    for (const stored of [undefined, null, 'zh', 42, []]) {
      expect(parsePushSettings(stored)).toEqual(DEFAULT_PUSH_SETTINGS);
    }
    expect(DEFAULT_PUSH_SETTINGS).toEqual({ showSessionTitle: false, language: 'en' });
  });
  it('the title shows only for a stored true; an unknown language is English', () => {
    expect(parsePushSettings({ showSessionTitle: 'yes', language: 'fr' })).toEqual({
      showSessionTitle: false,
      language: 'en',
    });
    expect(parsePushSettings({ showSessionTitle: true, language: 'zh' })).toEqual({
      showSessionTitle: true,
      language: 'zh',
    });
  });
});
