import { For } from 'solid-js';
import { routeHref } from '../client/router.ts';
import { useUi } from './context.tsx';

// E6: what a revoke did to this phone, never silence — "This phone was removed from <machine>"
// (kept until dismissed, also across restarts), and a rotate this phone could not open.
export function PhoneNotices() {
  const ui = useUi();
  const failures = () =>
    Object.entries(ui.state().rotateFailures).map(([roomId, code]) => ({
      code,
      machine: ui.state().machines.find((m) => m.roomId === roomId)?.name ?? '',
    }));
  // E9: a removal claimed without the machine's proof: a notice, and the pairing stays.
  const unproven = () =>
    ui
      .state()
      .machines.filter((m) => m.unprovenRemoval !== undefined)
      .map((m) => m.name);
  return (
    <>
      <For each={ui.state().removed}>
        {(r) => (
          <div class="banner bad removed-notice" role="alert">
            <p>
              <strong>{ui.t('removed.title', { machine: r.machine })}</strong>
            </p>
            <p>{ui.t('removed.body', { machine: r.machine })}</p>
            <div class="actions">
              <a class="btn" href={routeHref({ name: 'pair' })}>
                {ui.t('machine.repair')}
              </a>
              <button
                type="button"
                class="btn"
                onClick={() => void ui.client.dismissRemoved(r.roomId)}
              >
                {ui.t('removed.dismiss')}
              </button>
            </div>
          </div>
        )}
      </For>
      <For each={unproven()}>
        {(m) => (
          <div class="banner warn unproven-removal" role="status">
            <p>{ui.t('removed.unproven', { machine: m })}</p>
          </div>
        )}
      </For>
      <For each={failures()}>
        {(f) => (
          <div class="banner bad" role="alert">
            <p>{ui.t('phones.rotateFailed', { machine: f.machine, code: f.code })}</p>
            <a class="btn" href={routeHref({ name: 'pair' })}>
              {ui.t('machine.repair')}
            </a>
          </div>
        )}
      </For>
    </>
  );
}
