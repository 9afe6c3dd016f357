import { Show, createSignal, onCleanup } from 'solid-js';
import type { Session } from '../../protocol/index.ts';
import { canStop } from '../client/extensions.ts';
import type { MachineView } from '../client/machine-view.ts';
import { useUi } from './context.tsx';
import { BlockedWhy, OutboxAction } from './widgets.tsx';

/** How long the first tap keeps Stop armed for the second. */
export const STOP_ARMED_MS = 5_000;

/**
 * E4: Stop on a running session, only where the machine announced `interrupt`. The first tap
 * arms it ("Tap again to stop"), the second sends `session.interrupt`; no dialog. Once sent it
 * shows like a decision (You chose: Stop · Sent), and the turn's end says "Stopped".
 */
export function StopButton(props: { view: MachineView; session: Session }) {
  const ui = useUi();
  const [armed, setArmed] = createSignal(false);
  const [error, setError] = createSignal<string | null>(null);
  let disarm: ReturnType<typeof setTimeout> | undefined;
  onCleanup(() => clearTimeout(disarm));
  const entry = () =>
    ui
      .state()
      .outbox.find(
        (e) =>
          e.kind === 'interrupt' &&
          e.roomId === props.view.roomId &&
          e.targetId === props.session.sessionId,
      );
  const tap = async () => {
    if (!armed()) {
      setArmed(true);
      disarm = setTimeout(() => setArmed(false), STOP_ARMED_MS);
      return;
    }
    clearTimeout(disarm);
    setArmed(false);
    const result = await ui.client.interrupt(props.view.roomId, props.session.sessionId);
    setError(result.ok ? null : ui.t(`block.${result.code}`));
  };
  return (
    <Show when={entry() ?? canStop(props.view, props.session)}>
      <OutboxAction entry={entry()} label={ui.t('stop.youChose')} error={error()}>
        <div class="stop">
          <button
            type="button"
            class="btn deny"
            disabled={ui.blocked(props.view.roomId) !== null}
            aria-describedby={`stop-why-${props.session.sessionId}`}
            aria-label={ui.t(armed() ? 'stop.confirmNamed' : 'stop.named', {
              title: props.session.title,
            })}
            onClick={() => void tap()}
            onBlur={() => setArmed(false)}
          >
            {armed() ? ui.t('stop.confirm') : ui.t('stop.stop')}
          </button>
          <p class="covers">{ui.t('stop.hint')}</p>
          <BlockedWhy roomId={props.view.roomId} id={`stop-why-${props.session.sessionId}`} />
        </div>
      </OutboxAction>
    </Show>
  );
}
