import { Show, createEffect, createSignal, onCleanup } from 'solid-js';
import type { OpenCard } from '../client/machine-view.ts';
import { useUi } from './context.tsx';

const elementId = (c: OpenCard) =>
  c.kind === 'approval' ? `approval-${c.approval.approvalId}` : `question-${c.question.questionId}`;

/**
 * SC1: "1 waiting ↓" — floats at the bottom while an open card of this session is off screen, and
 * jumps to (and focuses) the first one. Hidden while a card, or the reply box's own waiting
 * button, is on screen.
 */
export function WaitingChip(props: { cards: OpenCard[] }) {
  const ui = useUi();
  const [visible, setVisible] = createSignal(new Set<string>());
  createEffect(() => {
    // The reply box's own "1 approval waiting" does the same when it is on screen.
    const ids = [...props.cards.map(elementId), 'reply-waiting'];
    const seen = new IntersectionObserver((entries) => {
      const next = new Set(visible());
      for (const e of entries) {
        if (e.isIntersecting) next.add(e.target.id);
        else next.delete(e.target.id);
      }
      setVisible(next);
    });
    queueMicrotask(() => {
      for (const id of ids) {
        const el = document.getElementById(id);
        if (el) seen.observe(el);
      }
    });
    onCleanup(() => seen.disconnect());
  });
  const offScreen = () =>
    props.cards.length > 0 &&
    !visible().has('reply-waiting') &&
    !props.cards.some((c) => visible().has(elementId(c)));
  const jump = () => {
    const first = props.cards[0];
    const el = first ? document.getElementById(elementId(first)) : null;
    el?.scrollIntoView({ block: 'start' });
    el?.focus({ preventScroll: true });
  };
  return (
    <Show when={offScreen()}>
      <button type="button" class="btn primary waiting-jump" onClick={jump}>
        {ui.t('tl.waiting', { count: props.cards.length })}
      </button>
    </Show>
  );
}
