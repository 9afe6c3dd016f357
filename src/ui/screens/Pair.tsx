import { Show, createEffect, createSignal, onCleanup } from 'solid-js';
import type { Pairing } from '../../../protocol/index.ts';
import { readPairingInput } from '../../client/pairing-store.ts';
import { routeHref } from '../../client/router.ts';
import { hasKey } from '../../i18n/index.ts';
import { useUi } from '../context.tsx';
import type { Scan } from '../scanner.ts';
import { Header } from '../widgets.tsx';

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

export default function Pair() {
  const ui = useUi();
  const [code, setCode] = createSignal('');
  const [error, setError] = createSignal<string | null>(null);
  const [candidate, setCandidate] = createSignal<Pairing | null>(null);
  const [scanning, setScanning] = createSignal(false);
  const [scanError, setScanError] = createSignal<string | null>(null);
  const [saving, setSaving] = createSignal(false);
  let scanBox: HTMLDivElement | undefined;
  let scan: Scan | null = null;

  // Nothing is stored until the owner confirms; a bad code only ever produces its message.
  const check = (input: string) => {
    const parsed = readPairingInput(input);
    if (!parsed.ok) {
      setCandidate(null);
      const key = `pairing.${parsed.code}`;
      setError(hasKey(key) ? ui.t(key as 'pairing.unknown') : ui.t('pairing.unknown'));
      return;
    }
    setError(null);
    setCandidate(parsed.value);
  };

  // A `#pair=` link (D14): read once, then dropped from memory too.
  createEffect(() => {
    const fromLink = ui.pairCode();
    if (fromLink) {
      ui.setPairCode(null);
      check(fromLink);
    }
  });

  const stopScan = async () => {
    const s = scan;
    scan = null;
    setScanning(false);
    await s?.stop().catch(() => {});
  };
  onCleanup(() => void stopScan());

  const startScan = async () => {
    setScanError(null);
    setScanning(true);
    try {
      const { startScan: start, classifyCameraError } = await import('../scanner.ts');
      try {
        scan = await start(scanBox!, (text) => {
          void stopScan();
          check(text);
        });
      } catch (e) {
        const kind = classifyCameraError(e);
        setScanError(
          ui.t(
            kind === 'denied'
              ? 'pair.cameraDenied'
              : kind === 'no-camera'
                ? 'pair.noCamera'
                : 'pair.scanFailed',
          ),
        );
        await stopScan();
      }
    } catch {
      setScanError(ui.t('pair.scanFailed'));
      setScanning(false);
    }
  };

  const already = () => {
    const c = candidate();
    return !!c && ui.state().machines.some((m) => m.relay === c.relay && m.name === c.machine);
  };

  const confirm = async () => {
    const c = candidate();
    if (!c || saving()) return;
    setSaving(true);
    try {
      const first = ui.state().machines.length === 0;
      const paired = await ui.client.pair(c);
      if (first) void ui.requestPersist();
      setCandidate(null);
      setCode('');
      ui.go({ name: 'machine', roomId: paired.roomId });
    } catch {
      setError(ui.t('pair.storageFailed'));
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <Header title={ui.t('pair.title')} back={{ name: 'inbox' }} />
      <main class="page">
        <Show
          when={candidate()}
          fallback={
            <>
              <p>{ui.t('pair.intro')}</p>
              <section class="section" aria-labelledby="pair-scan">
                <h2 id="pair-scan" class="visually-hidden">
                  {ui.t('pair.scan')}
                </h2>
                <Show
                  when={scanning()}
                  fallback={
                    <button type="button" class="btn primary" onClick={() => void startScan()}>
                      {ui.t('pair.scan')}
                    </button>
                  }
                >
                  <p role="status">{ui.t('pair.scanning')}</p>
                  <button type="button" class="btn" onClick={() => void stopScan()}>
                    {ui.t('pair.stopScan')}
                  </button>
                </Show>
                <div class="scan-box" ref={scanBox} />
                <Show when={scanError()}>
                  <p class="banner warn" role="alert">
                    {scanError()}
                  </p>
                </Show>
              </section>
              <form
                class="form"
                onSubmit={(ev) => {
                  ev.preventDefault();
                  check(code());
                }}
              >
                <label class="field">
                  <span>{ui.t('pair.paste')}</span>
                  <textarea
                    rows="3"
                    value={code()}
                    onInput={(ev) => setCode(ev.currentTarget.value)}
                    autocomplete="off"
                    spellcheck={false}
                    aria-describedby={error() ? 'pair-error' : undefined}
                  />
                </label>
                <button type="submit" class="btn primary" disabled={code().trim() === ''}>
                  {ui.t('pair.check')}
                </button>
              </form>
              <Show when={error()}>
                <p class="banner bad" id="pair-error" role="alert">
                  {error()}
                </p>
              </Show>
            </>
          }
        >
          {(c) => (
            <section class="section" aria-labelledby="pair-confirm">
              <h2 id="pair-confirm">{ui.t('pair.confirmTitle')}</h2>
              <p>{ui.t('pair.confirmMachine', { name: c().machine })}</p>
              <p>{ui.t('pair.confirmRelay', { host: hostOf(c().relay) })}</p>
              <Show when={already()}>
                <p class="banner warn">{ui.t('pair.repairNote')}</p>
              </Show>
              <div class="actions">
                <button
                  type="button"
                  class="btn primary"
                  disabled={saving()}
                  onClick={() => void confirm()}
                >
                  {ui.t('pair.confirm')}
                </button>
                <button type="button" class="btn" onClick={() => setCandidate(null)}>
                  {ui.t('pair.cancel')}
                </button>
              </div>
              <Show when={error()}>
                <p class="banner bad" role="alert">
                  {error()}
                </p>
              </Show>
            </section>
          )}
        </Show>
        <p>
          <a href={routeHref({ name: 'inbox' })}>{ui.t('nav.inbox')}</a>
        </p>
      </main>
    </>
  );
}
