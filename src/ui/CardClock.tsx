import { Show } from 'solid-js';
import { ageText, leftText } from '../client/card-times.ts';
import { useUi } from './context.tsx';
import './truth.css';

/** E1: "2 min ago · expires in 28 min", on the machine's clock as this phone measured it (D11). */
export function CardClock(props: {
  roomId: string;
  createdAt: number;
  expiresAt: number | undefined;
}) {
  const ui = useUi();
  // ui.now() only ticks (every 30 s) to re-render; the time itself is read fresh.
  const machineNow = () => (ui.now(), Date.now()) + ui.client.clock.offsetMs(props.roomId);
  const age = () => ageText(props.createdAt, machineNow());
  const left = () =>
    props.expiresAt !== undefined ? leftText(props.expiresAt, machineNow()) : null;
  return (
    <p class="tr-clock">
      <time datetime={new Date(props.createdAt).toISOString()}>
        {ui.t(`truth.${age().key}`, { n: age().n })}
      </time>
      <Show when={left()}>
        {(l) => (
          <>
            {' · '}
            <span class={`tr-${l().key.replace('.', '-')}`}>
              {ui.t(`truth.${l().key}`, { n: l().n })}
            </span>
          </>
        )}
      </Show>
    </p>
  );
}
