import { Show } from 'solid-js';
import type { Session } from '../../protocol/index.ts';
import type { MachineView } from '../client/machine-view.ts';
import { presenceOf } from '../client/presence.ts';
import { lastKnown, sessionRowState } from '../client/recent-sessions.ts';
import { hasKey } from '../i18n/index.ts';
import { useUi } from './context.tsx';
import { Icon } from './icons.tsx';
import { STATE_ICONS } from './widgets.tsx';

/**
 * U1: a session's chip, from the same store as the cards and the counts (waiting.ts). SC5: a
 * stopped turn says "Stopped by you" and an ended session "Ended — <why>", each with its own
 * icon, never the failed one (recent-sessions.ts). SC3.3: while the machine is away, "Running"
 * and the waiting states are only what it last said — "Running as of 14:02", with the away icon.
 */
export function SessionChip(props: { view: MachineView; session: Session }) {
  const ui = useUi();
  const chip = () => sessionRowState(props.view, props.session);
  const text = () => {
    const c = chip();
    if (c === 'question') return ui.t('truth.chip.question');
    if (c === 'unseen') return ui.t('truth.chip.unseen');
    if (c === 'stopped') return ui.t('state.stopped');
    if (c === 'ended') {
      const key = `session.ended.${props.session.ended?.reason ?? ''}`;
      return hasKey(key) ? ui.t(key as 'session.ended.other') : ui.t('session.ended.other');
    }
    const key = `state.${c}`;
    return hasKey(key) ? ui.t(key as 'state.idle') : c;
  };
  const tone = () => (chip() === 'question' || chip() === 'unseen' ? 'awaiting_approval' : chip());
  const away = () => {
    const line = presenceOf(ui.state().links[props.view.relay], props.view, ui.state().network);
    return lastKnown(props.view, chip(), line.tone !== 'ok');
  };
  return (
    <Show
      when={away()}
      fallback={
        <span class={`chip state-${tone()}`}>
          <Icon name={STATE_ICONS[tone()] ?? 'warn'} />
          {text()}
        </span>
      }
    >
      {(known) => (
        <span class="chip state-away">
          <Icon name="machineOff" />
          {known().asOf === null
            ? ui.t('state.unknownAway')
            : ui.t('state.asOf', { state: text(), time: ui.time(known().asOf!) })}
        </span>
      )}
    </Show>
  );
}
