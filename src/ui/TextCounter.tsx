import type { TextCount } from '../client/text-count.ts';
import { useUi } from './context.tsx';

/**
 * U2: the same live "characters · bytes" counter under every box that goes to the machine. The
 * count itself is not announced on every keystroke; crossing the limit is.
 */
export function TextCounter(props: { id: string; count: TextCount; tooLong: string }) {
  const ui = useUi();
  return (
    <p id={props.id} class={props.count.over ? 'counter over' : 'counter'}>
      {ui.t('new.counter', {
        chars: props.count.chars,
        maxChars: props.count.maxChars,
        bytes: props.count.bytes,
        maxBytes: props.count.maxBytes,
      })}
      <span aria-live="polite">{props.count.over ? ` — ${props.tooLong}` : ''}</span>
    </p>
  );
}
