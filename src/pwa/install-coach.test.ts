import { describe, expect, it } from 'vitest';
import { INSTALL_ADVICE, installAdvice } from './install-coach.ts';

const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const IPAD_DESKTOP_MODE =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const ANDROID_CHROME =
  'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';

describe('Install coach (N1: iOS pushes only to the installed app)', () => {
  it('iPhone Safari in a tab is told to add the app to the Home Screen first', () => {
    expect(installAdvice({ userAgent: IPHONE_SAFARI, maxTouchPoints: 5, standalone: false })).toBe(
      INSTALL_ADVICE.iosAddToHomeScreen,
    );
  });
  it('an iPad asking for the desktop site (Mac user agent, touch) is still iOS', () => {
    expect(
      installAdvice({ userAgent: IPAD_DESKTOP_MODE, maxTouchPoints: 5, standalone: false }),
    ).toBe(INSTALL_ADVICE.iosAddToHomeScreen);
  });
  it('a real Mac (no touch) and Android need no install step', () => {
    expect(
      installAdvice({ userAgent: IPAD_DESKTOP_MODE, maxTouchPoints: 0, standalone: false }),
    ).toBe(INSTALL_ADVICE.none);
    expect(installAdvice({ userAgent: ANDROID_CHROME, maxTouchPoints: 5, standalone: false })).toBe(
      INSTALL_ADVICE.none,
    );
  });
  it('the installed app (standalone) is never coached', () => {
    expect(installAdvice({ userAgent: IPHONE_SAFARI, maxTouchPoints: 5, standalone: true })).toBe(
      INSTALL_ADVICE.installed,
    );
  });
});
