import {
  createContext,
  createSignal,
  onCleanup,
  untrack,
  useContext,
  type Accessor,
} from 'solid-js';
import type { Client, ClientState } from '../client/client.ts';
import type { PushClient } from '../client/push/push-client.ts';
import { parseRoute, routeHref, type Route } from '../client/router.ts';
import {
  defaultLocale,
  formatTime,
  formatWhen,
  loadLocale,
  LOCALES,
  translate,
  type Locale,
  type MessageKey,
  type Params,
} from '../i18n/index.ts';
import { languageOf } from '../../page-worker/language.ts';

export const THEMES = { system: 'system', light: 'light', dark: 'dark' } as const;
export type Theme = (typeof THEMES)[keyof typeof THEMES];
export const STORAGE_STATES = {
  persisted: 'persisted',
  notPersisted: 'not-persisted',
  unknown: 'unknown',
} as const;
export type StorageState = (typeof STORAGE_STATES)[keyof typeof STORAGE_STATES];

// Language and theme are preferences, not secrets: localStorage is fine for them (pairing
// secrets never go there).
const PREFS_LOCALE = 'dsh.locale';
const PREFS_THEME = 'dsh.theme';
const CLOCK_TICK_MS = 30_000;

export type Ui = {
  client: Client;
  state: Accessor<ClientState>;
  locale: Accessor<Locale>;
  setLocale(locale: Locale): Promise<void>;
  theme: Accessor<Theme>;
  setTheme(theme: Theme): void;
  t(key: MessageKey, params?: Params): string;
  time(ms: number): string;
  /** SC5: the time, with the date when it is not today. */
  when(ms: number): string;
  route: Accessor<Route>;
  go(route: Route): void;
  /** The wall clock, ticking, so "since hh:mm" lines stay honest. */
  now: Accessor<number>;
  pairCode: Accessor<string | null>;
  setPairCode(code: string | null): void;
  storage: Accessor<StorageState>;
  requestPersist(): Promise<void>;
  /** Why actions on this machine are disabled right now (reactive), or null. */
  blocked(roomId: string): ReturnType<Client['blocked']>;
  /** The push client (a lazy chunk); absent where the app runs without one (tests). */
  push?: Promise<PushClient | null>;
};

const UiContext = createContext<Ui>();
export const useUi = (): Ui => {
  const ui = useContext(UiContext);
  if (!ui) throw new Error('useUi outside <UiProvider>');
  return ui;
};
export const UiProvider = UiContext.Provider;

function readPref<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
  try {
    const value = localStorage.getItem(key);
    return allowed.includes(value as T) ? (value as T) : fallback;
  } catch {
    return fallback;
  }
}
function writePref(key: string, value: string) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // private mode: the preference lasts for this visit only
  }
}

function applyTheme(theme: Theme) {
  const root = document.documentElement;
  if (theme === THEMES.system) delete root.dataset.theme;
  else root.dataset.theme = theme;
}

/** The locale the app starts in; main.tsx loads its dictionary before the first render. */
export function initialLocale(): Locale {
  return readPref(
    PREFS_LOCALE,
    Object.values(LOCALES),
    defaultLocale(navigator.languages ?? [navigator.language]),
  );
}

export function createUi(
  client: Client,
  initialPairCode: string | null,
  push?: Promise<PushClient | null>,
): Ui {
  const [state, setState] = createSignal(client.state(), { equals: false });
  onCleanup(client.subscribe(() => setState(client.state())));

  const [locale, setLocaleSignal] = createSignal<Locale>(initialLocale());
  const [theme, setThemeSignal] = createSignal<Theme>(
    readPref(PREFS_THEME, Object.values(THEMES), THEMES.system),
  );
  document.documentElement.lang = untrack(locale);
  applyTheme(untrack(theme));

  const [route, setRoute] = createSignal<Route>(parseRoute(location.hash));
  const onHash = () => setRoute(parseRoute(location.hash));
  window.addEventListener('hashchange', onHash);
  onCleanup(() => window.removeEventListener('hashchange', onHash));

  const [now, setNow] = createSignal(Date.now());
  const tick = setInterval(() => setNow(Date.now()), CLOCK_TICK_MS);
  onCleanup(() => clearInterval(tick));

  const [pairCode, setPairCode] = createSignal<string | null>(initialPairCode);
  const [storage, setStorage] = createSignal<StorageState>(STORAGE_STATES.unknown);
  const readPersisted = async () => {
    if (!navigator.storage?.persisted) return;
    setStorage((await navigator.storage.persisted()) ? 'persisted' : 'not-persisted');
  };
  void readPersisted();

  void push?.then((p) => p?.setLanguage(languageOf(untrack(locale))));

  return {
    client,
    ...(push ? { push } : {}),
    state,
    locale,
    async setLocale(next) {
      await loadLocale(next);
      setLocaleSignal(next);
      document.documentElement.lang = next;
      writePref(PREFS_LOCALE, next);
      // The worker writes notifications while the app is closed: it follows the app's language.
      void push?.then((p) => p?.setLanguage(languageOf(next)));
    },
    theme,
    setTheme(next) {
      setThemeSignal(next);
      applyTheme(next);
      writePref(PREFS_THEME, next);
    },
    t: (key, params) => translate(locale(), key, params),
    time: (ms) => formatTime(locale(), ms),
    when: (ms) => formatWhen(locale(), ms, now()),
    route,
    go(next) {
      location.hash = routeHref(next);
    },
    now,
    pairCode,
    setPairCode,
    storage,
    blocked(roomId) {
      state();
      return client.blocked(roomId);
    },
    async requestPersist() {
      if (!navigator.storage?.persist) return;
      setStorage((await navigator.storage.persist()) ? 'persisted' : 'not-persisted');
    },
  };
}
