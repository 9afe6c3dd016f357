import { Show, createSignal } from 'solid-js';
import { useUi } from './context.tsx';
import './truth.css';

/** Blocks longer than this are collapsed behind "Show all". */
export const COLLAPSED_LINES = 12;

/**
 * U3.2: code and tool output in monospace, scrolling sideways inside the block (never the page),
 * long blocks collapsed with "Show all". Focusable so the sideways scroll works from a keyboard.
 */
export function CodeBlock(props: { text: string; lang: string | undefined; foldAt?: number }) {
  const ui = useUi();
  const [open, setOpen] = createSignal(false);
  const lines = () => props.text.split('\n');
  const fold = () => props.foldAt ?? COLLAPSED_LINES;
  const long = () => lines().length > fold();
  const shown = () => (long() && !open() ? lines().slice(0, fold()).join('\n') : props.text);
  return (
    <div class="tr-code">
      <pre
        tabindex="0"
        aria-label={
          props.lang
            ? `${ui.t('truth.transcript.code')} (${props.lang})`
            : ui.t('truth.transcript.code')
        }
      >
        <code>{shown()}</code>
      </pre>
      <Show when={long()}>
        <button type="button" class="btn" aria-expanded={open()} onClick={() => setOpen(!open())}>
          {open()
            ? ui.t('truth.transcript.showLess')
            : ui.t('truth.transcript.showAll', { lines: lines().length })}
        </button>
      </Show>
    </div>
  );
}
