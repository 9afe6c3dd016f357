import { For, Show, createSignal, onCleanup } from 'solid-js';
import type { PushReceipt } from '../../../protocol/index.ts';
import { InstallCoach } from '../../pwa/InstallCoach.tsx';
import { INSTALL_ADVICE, installAdvice, type PlatformFacts } from '../../pwa/install-coach.ts';
import type { Language } from '../../../page-worker/language.ts';
import { MACHINE_PUSH_STATES, type PushClient, type PushClientState } from './push-client.ts';
import { describeReceipt } from './receipt.ts';
import { PUSH_UI_STRINGS, errorLabel, machineStateLabel } from './ui-strings.ts';

const time = (ms: number) =>
  new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
const clockTime = (ms: number) =>
  new Date(ms).toLocaleTimeString(undefined, { timeStyle: 'short' });

/**
 * Settings › Notifications (N2): the switch (a tap is required for the permission prompt),
 * the lock-screen privacy choice, and per machine its state, last push and what happened to its
 * last notification (machine.status.pushReceipt: the relay's answer, relayed sealed by the machine).
 */
export function NotificationsSettings(props: {
  client: PushClient;
  /** The machine views: `status.pushReceipt` is absent until that machine reports one. */
  machines: readonly {
    roomId: string;
    name: string;
    status?: { pushReceipt?: PushReceipt } | null;
  }[];
  platform: PlatformFacts;
  language?: Language;
}) {
  const lang = () => props.language ?? 'en';
  const s = () => PUSH_UI_STRINGS[lang()];
  // eslint-disable-next-line solid/reactivity -- the client is one object for the app's life
  const client = props.client;
  const [state, setState] = createSignal<PushClientState>(client.state());
  onCleanup(client.onChange(() => setState(client.state())));
  const needsInstall = () => installAdvice(props.platform) === INSTALL_ADVICE.iosAddToHomeScreen;

  return (
    <section class="notifications-settings" aria-labelledby="notifications-title">
      <h2 id="notifications-title">{s().title}</h2>
      <InstallCoach platform={props.platform} language={lang()} />
      <Show when={!needsInstall()}>
        <Show
          when={state().enabled && state().permission === 'granted'}
          fallback={
            <button
              type="button"
              class="btn primary cta"
              disabled={state().busy || state().permission === 'unsupported'}
              onClick={() => void client.enable()}
            >
              {s().turnOn}
            </button>
          }
        >
          <p>{s().on}</p>
          <button
            type="button"
            class="btn"
            disabled={state().busy}
            onClick={() => void client.disable()}
          >
            {s().turnOff}
          </button>
        </Show>
        <Show when={state().error}>
          {(error) => (
            <p role="alert" class="notifications-settings__error" data-code={error().code}>
              {errorLabel(lang(), error().code)}
            </p>
          )}
        </Show>
        <label class="notifications-settings__privacy">
          <input
            type="checkbox"
            checked={state().settings.showSessionTitle}
            onChange={(e) => void client.setShowSessionTitle(e.currentTarget.checked)}
          />
          {s().privacy}
        </label>
        <ul class="notifications-settings__machines">
          <For each={props.machines}>
            {(m) => {
              const entry = () => state().machines[m.roomId];
              return (
                <li data-room={m.roomId}>
                  <strong>{m.name}</strong>:{' '}
                  <span class="push-state">
                    {machineStateLabel(lang(), entry()?.state ?? MACHINE_PUSH_STATES.off)}
                  </span>
                  <Show when={entry()?.error}>
                    {(e) => <span> — {errorLabel(lang(), e().code)}</span>}
                  </Show>
                  <Show when={entry()?.lastPush}>
                    {(p) => (
                      <span class="push-last">
                        {' '}
                        · {s().lastPush} {time(p().at)}
                      </span>
                    )}
                  </Show>
                  <Show when={m.status?.pushReceipt}>
                    {(r) => {
                      const view = () => describeReceipt(lang(), m.name, r(), clockTime);
                      return (
                        <p
                          class="push-receipt"
                          role="status"
                          data-outcome={r().outcome}
                          data-tone={view().tone}
                        >
                          {view().text}
                          <Show when={view().hint}>
                            {(hint) => <span class="push-receipt__hint"> {hint()}</span>}
                          </Show>
                        </p>
                      );
                    }}
                  </Show>
                </li>
              );
            }}
          </For>
        </ul>
      </Show>
    </section>
  );
}
