// iOS delivers Web Push only to an app added to the Home Screen, and that app's storage is
// separate from Safari's: pairing must happen inside the installed app. So on iOS outside
// standalone mode we explain Add to Home Screen before offering notifications at all.

export const INSTALL_ADVICE = {
  /** iOS, in a browser tab: add to the Home Screen, open from there, pair there. */
  iosAddToHomeScreen: 'ios-add-to-home-screen',
  /** Already running as an installed app (any platform). */
  installed: 'installed',
  /** Other platforms push from the browser too; installing is optional. */
  none: 'none',
} as const;
export type InstallAdvice = (typeof INSTALL_ADVICE)[keyof typeof INSTALL_ADVICE];

export type PlatformFacts = {
  userAgent: string;
  /** navigator.maxTouchPoints: iPadOS reports a Mac user agent but has touch. */
  maxTouchPoints: number;
  /** `display-mode: standalone` matches, or Safari's `navigator.standalone`. */
  standalone: boolean;
};

export function isIos(facts: PlatformFacts): boolean {
  if (/\b(iPhone|iPad|iPod)\b/.test(facts.userAgent)) return true;
  return /\bMacintosh\b/.test(facts.userAgent) && facts.maxTouchPoints > 1;
}

export function installAdvice(facts: PlatformFacts): InstallAdvice {
  if (facts.standalone) return INSTALL_ADVICE.installed;
  return isIos(facts) ? INSTALL_ADVICE.iosAddToHomeScreen : INSTALL_ADVICE.none;
}

/** Reads the facts from the running browser. */
export function currentPlatform(): PlatformFacts {
  const nav = navigator as Navigator & { standalone?: boolean };
  return {
    userAgent: nav.userAgent,
    maxTouchPoints: nav.maxTouchPoints ?? 0,
    standalone:
      nav.standalone === true || window.matchMedia?.('(display-mode: standalone)').matches === true,
  };
}
