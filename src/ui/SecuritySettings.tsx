import { Show, createResource, createSignal } from 'solid-js';
import { PRESENCE_FAILURES, PresenceError, type PresenceFailure } from '../client/webauthn.ts';
import { useUi } from './context.tsx';

const FAILURE_TEXT = {
  [PRESENCE_FAILURES.unavailable]: 'security.unavailable',
  [PRESENCE_FAILURES.cancelled]: 'security.cancelled',
  [PRESENCE_FAILURES.unusable]: 'security.unusable',
} as const satisfies Record<PresenceFailure, string>;

// E7: Settings › Security — "Require fingerprint / face for risky approvals on this phone". On
// creates a platform credential (user verification required) and registers it with every
// machine; a phone without a usable authenticator says so instead of offering a switch that fails.
export function SecuritySettings() {
  const ui = useUi();
  const [available] = createResource(() => ui.client.presenceAvailable());
  // While the authenticator is asked, the switch shows what was asked for: `on()` reads the whole
  // client state, so any frame arriving meanwhile would otherwise set it back under the finger.
  const [wanted, setWanted] = createSignal<boolean | null>(null);
  const busy = () => wanted() !== null;
  const [failure, setFailure] = createSignal<PresenceFailure | null>(null);
  const on = () => ui.state().credential !== null;
  const toggle = async (want: boolean) => {
    setWanted(want);
    setFailure(null);
    try {
      if (want) await ui.client.enablePresence();
      else await ui.client.disablePresence();
    } catch (e) {
      setFailure(e instanceof PresenceError ? e.code : PRESENCE_FAILURES.cancelled);
    } finally {
      setWanted(null);
    }
  };
  return (
    <section class="section security" aria-labelledby="set-security">
      <h2 id="set-security">{ui.t('security.title')}</h2>
      <label class="check">
        <input
          type="checkbox"
          id="presence-toggle"
          checked={wanted() ?? on()}
          disabled={busy() || (!on() && available() !== true)}
          aria-describedby="presence-hint presence-state"
          onChange={(ev) => void toggle(ev.currentTarget.checked)}
        />
        <span>{ui.t('security.presence')}</span>
      </label>
      <p class="hint" id="presence-hint">
        {ui.t('security.presenceHint')}
      </p>
      <p class="result" id="presence-state" role="status">
        <Show
          when={busy()}
          fallback={
            <Show
              when={!on() && available() === false}
              fallback={on() ? ui.t('security.on') : ui.t('security.off')}
            >
              {ui.t('security.unavailable')}
            </Show>
          }
        >
          {ui.t('security.working')}
        </Show>
      </p>
      <Show when={failure()}>
        {(f) => (
          <p class="why" role="alert" data-code={f()}>
            {ui.t(FAILURE_TEXT[f()])}
          </p>
        )}
      </Show>
    </section>
  );
}
