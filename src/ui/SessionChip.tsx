import type { Session } from '../../protocol/index.ts';
import type { MachineView } from '../client/machine-view.ts';
import { chipOf } from '../client/waiting.ts';
import { hasKey } from '../i18n/index.ts';
import { useUi } from './context.tsx';
import { Icon } from './icons.tsx';
import { STATE_ICONS } from './widgets.tsx';

/** U1: a session's chip, from the same store as the cards and the counts (waiting.ts). */
export function SessionChip(props: { view: MachineView; session: Session }) {
  const ui = useUi();
  const chip = () => chipOf(props.view, props.session);
  const text = () => {
    const c = chip();
    if (c === 'question') return ui.t('truth.chip.question');
    if (c === 'unseen') return ui.t('truth.chip.unseen');
    const key = `state.${c}`;
    return hasKey(key) ? ui.t(key) : c;
  };
  const tone = () => (chip() === 'question' || chip() === 'unseen' ? 'awaiting_approval' : chip());
  return (
    <span class={`chip state-${tone()}`}>
      <Icon name={STATE_ICONS[tone()] ?? 'warn'} />
      {text()}
    </span>
  );
}
