import { For, Show } from 'solid-js';
import type { MachineView } from '../client/machine-view.ts';
import { presenceOf, type PresenceLine } from '../client/presence.ts';
import { useUi } from './context.tsx';
import './truth.css';

type Banner = { id: string; line: PresenceLine; name: string };

/**
 * U4.offline: which link is down, in words that tell the three apart — this phone's network
 * ("You are offline"), the relay, or the machine ("demo offline since 14:02") — with an icon and
 * a word, never colour alone, and a "Reconnect now" that does not wait for the next retry.
 * With `machines` it speaks for those machines only (a session); the phone and the relay are
 * said once per screen.
 */
export function ConnectionBanner(props: { views: readonly MachineView[]; machines?: boolean }) {
  const ui = useUi();
  const banners = (): Banner[] => {
    const out: Banner[] = [];
    const seen = new Set<string>();
    for (const v of props.views) {
      const line = presenceOf(ui.state().links[v.relay], v, ui.state().network);
      if (line.down === 'none') continue;
      if (line.down === 'machine' && !props.machines) continue;
      const id = line.down === 'machine' ? v.roomId : line.down === 'relay' ? v.relay : 'network';
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ id, line, name: v.name });
    }
    return out;
  };
  const long = (b: Banner) => {
    const time = b.line.since !== undefined ? ui.time(b.line.since) : '';
    if (b.line.down === 'network') return ui.t('truth.youOfflineLong');
    if (b.line.down === 'relay') return ui.t('truth.relayDownLong', { time });
    return b.line.since !== undefined
      ? ui.t('truth.machineOfflineLong', { name: b.name, time })
      : ui.t('truth.machineOfflineUnknown', { name: b.name });
  };
  return (
    <For each={banners()}>
      {(b) => (
        <div class={`tr-banner tr-${b.line.down}`} role="status">
          <p>
            <span class="tr-icon" aria-hidden="true">
              {b.line.down === 'network' ? '⊘ ' : '⚠ '}
            </span>
            {long(b)}
          </p>
          <Show when={b.line.down !== 'machine' || ui.state().network === 'online'}>
            <button type="button" class="btn" onClick={() => ui.client.reconnectNow()}>
              {ui.t('truth.reconnect')}
            </button>
          </Show>
        </div>
      )}
    </For>
  );
}
