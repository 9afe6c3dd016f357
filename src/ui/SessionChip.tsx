import type { Session } from '../../protocol/index.ts';
import type { MachineView } from '../client/machine-view.ts';
import { sessionRowState } from '../client/recent-sessions.ts';
import { hasKey } from '../i18n/index.ts';
import { useUi } from './context.tsx';
import { Icon } from './icons.tsx';
import { STATE_ICONS } from './widgets.tsx';

/**
 * U1: a session's chip, from the same store as the cards and the counts (waiting.ts). SC5: a
 * stopped turn says "Stopped by you" and an ended session "Ended — <why>", each with its own
 * icon, never the failed one (recent-sessions.ts).
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
  return (
    <span class={`chip state-${tone()}`}>
      <Icon name={STATE_ICONS[tone()] ?? 'warn'} />
      {text()}
    </span>
  );
}
