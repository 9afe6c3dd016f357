import { For, Show, createResource, createSignal } from 'solid-js';
import { NotificationsSettings } from '../../client/push/NotificationsSettings.tsx';
import { routeHref } from '../../client/router.ts';
import { LOCALE_NAMES, type Locale } from '../../i18n/index.ts';
import { currentPlatform } from '../../pwa/install-coach.ts';
import { languageOf } from '../../../page-worker/language.ts';
import { THEMES, useUi, type StorageState, type Theme } from '../context.tsx';
import { ByKey } from '../ByKey.tsx';
import { SecuritySettings } from '../SecuritySettings.tsx';
import { Header, PairLink, Presence, RowLink } from '../widgets.tsx';

const STORAGE_ANSWERS = {
  persisted: 'settings.storage.granted',
  'not-persisted': 'settings.storage.refused',
  unknown: 'settings.storage.cannotAsk',
} as const satisfies Record<StorageState, string>;

export default function Settings() {
  const ui = useUi();
  // Without a push client (it failed to load, or none was given) the section says so.
  const [push] = createResource(async () => (await ui.push) ?? null);
  // U4.4: asking for persistent storage always answers, also when nothing changed.
  const [answer, setAnswer] = createSignal<StorageState | null>(null);
  const askPersist = async () => {
    try {
      await ui.requestPersist();
      setAnswer(ui.storage());
    } catch {
      setAnswer('unknown');
    }
  };
  return (
    <>
      <Header title={ui.t('settings.title')} back={{ name: 'inbox' }} />
      <main class="page">
        <section class="section" aria-labelledby="set-lang">
          <h2 id="set-lang">{ui.t('settings.language')}</h2>
          <label class="field">
            <span class="visually-hidden">{ui.t('settings.language')}</span>
            <select
              value={ui.locale()}
              onChange={(ev) => void ui.setLocale(ev.currentTarget.value as Locale)}
            >
              <For each={Object.entries(LOCALE_NAMES)}>
                {([code, name]) => (
                  <option value={code} lang={code}>
                    {name}
                  </option>
                )}
              </For>
            </select>
          </label>
        </section>
        <section class="section" aria-labelledby="set-theme">
          <h2 id="set-theme">{ui.t('settings.theme')}</h2>
          <div class="segmented" role="radiogroup" aria-labelledby="set-theme">
            <For each={Object.values(THEMES)}>
              {(theme: Theme) => (
                <label class="choice">
                  <input
                    type="radio"
                    name="theme"
                    value={theme}
                    checked={ui.theme() === theme}
                    onChange={() => ui.setTheme(theme)}
                  />
                  <span>{ui.t(`settings.theme.${theme}`)}</span>
                </label>
              )}
            </For>
          </div>
        </section>
        <div class="section" id="notifications">
          <Show
            when={push()}
            fallback={
              <section aria-labelledby="set-notif">
                <h2 id="set-notif">{ui.t('settings.notifications')}</h2>
                <p class="hint">{ui.t('settings.notificationsSoon')}</p>
              </section>
            }
          >
            {(client) => (
              <NotificationsSettings
                client={client()}
                machines={ui.state().machines}
                platform={currentPlatform()}
                language={languageOf(ui.locale())}
              />
            )}
          </Show>
        </div>
        <SecuritySettings />
        <section class="section" aria-labelledby="set-storage">
          <h2 id="set-storage">{ui.t('settings.storage')}</h2>
          <p>
            {ui.storage() === 'persisted'
              ? ui.t('settings.storage.persisted')
              : ui.storage() === 'not-persisted'
                ? ui.t('settings.storage.notPersisted')
                : ui.t('settings.storage.unknown')}
          </p>
          <Show when={ui.storage() !== 'persisted'}>
            <button type="button" class="btn" onClick={() => void askPersist()}>
              {ui.t('settings.storage.ask')}
            </button>
          </Show>
          <p class="result" role="status">
            <Show when={answer()}>{(a) => ui.t(STORAGE_ANSWERS[a()])}</Show>
          </p>
        </section>
        <section class="section" aria-labelledby="set-machines">
          <h2 id="set-machines">{ui.t('settings.machines')}</h2>
          <ul class="list">
            <ByKey each={ui.state().machines} key={(m) => m.roomId}>
              {(m) => (
                <li>
                  <RowLink href={routeHref({ name: 'machine', roomId: m().roomId })}>
                    <span class="row-title">{m().name}</span>
                    <span class="row-sub">
                      <Presence view={m()} />
                    </span>
                  </RowLink>
                </li>
              )}
            </ByKey>
          </ul>
          <div class="actions">
            <PairLink />
          </div>
        </section>
        <p class="hint">{ui.t('settings.version', { version: __APP_VERSION__ })}</p>
      </main>
    </>
  );
}
