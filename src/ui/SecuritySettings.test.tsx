// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@solidjs/testing-library';
import { createSignal } from 'solid-js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientState } from '../client/client.ts';
import { PRESENCE_FAILURES, PresenceError } from '../client/webauthn.ts';
import { LOCALES, loadScreenStrings, translate } from '../i18n/index.ts';
import { UiProvider, type Ui } from './context.tsx';
import { SecuritySettings } from './SecuritySettings.tsx';

afterEach(cleanup);

type Deferred = { resolve(): void; reject(e: unknown): void };

// The switch reads only these parts of the client; the rest of Ui is never touched here.
function mount() {
  const [state, setState] = createSignal({ credential: null, tick: 0 } as unknown as ClientState);
  let pending: Deferred | null = null;
  const client = {
    presenceAvailable: () => Promise.resolve(true),
    enablePresence: () =>
      new Promise<void>((resolve, reject) => {
        pending = { resolve, reject };
      }),
    disablePresence: () => Promise.resolve(),
  };
  const ui = {
    client,
    state,
    t: (key: Parameters<Ui['t']>[0]) => translate(LOCALES.en, key),
  } as unknown as Ui;
  render(() => (
    <UiProvider value={ui}>
      <SecuritySettings />
    </UiProvider>
  ));
  return {
    /** Any frame from any machine makes a new client state. */
    otherFrame: () => setState((s) => ({ ...s })),
    registered: () =>
      setState((s) => ({ ...s, credential: { id: 'c' } }) as unknown as ClientState),
    answer: () => {
      if (!pending) throw new Error('the authenticator was not asked');
      return pending;
    },
  };
}

describe('E7: the presence switch while the authenticator is asked', () => {
  it('E7: a frame arriving while the authenticator is asked leaves the switch on, not set back under the finger', async () => {
    await loadScreenStrings();
    const m = mount();
    const toggle = (await screen.findByRole('checkbox')) as HTMLInputElement;
    await expect.poll(() => toggle.disabled).toBe(false);
    fireEvent.click(toggle);
    expect(toggle.checked).toBe(true);
    m.otherFrame();
    expect(toggle.checked).toBe(true);
    expect(toggle.disabled).toBe(true);
    m.registered();
    m.answer().resolve();
    await expect.poll(() => toggle.disabled).toBe(false);
    expect(toggle.checked).toBe(true);
  });

  it('E7: a cancelled check puts the switch back off and says why', async () => {
    await loadScreenStrings();
    const m = mount();
    const toggle = (await screen.findByRole('checkbox')) as HTMLInputElement;
    await expect.poll(() => toggle.disabled).toBe(false);
    fireEvent.click(toggle);
    m.answer().reject(new PresenceError(PRESENCE_FAILURES.cancelled, 'cancelled'));
    const why = await screen.findByRole('alert');
    expect(why.dataset.code).toBe(PRESENCE_FAILURES.cancelled);
    expect(toggle.checked).toBe(false);
  });
});
