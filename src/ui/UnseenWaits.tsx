import { For } from 'solid-js';
import { routeHref } from '../client/router.ts';
import type { UnseenWait } from '../client/waiting.ts';
import { useUi } from './context.tsx';
import './truth.css';

/**
 * U1.3: a session the machine reports as waiting whose card is not on this phone (offline after
 * a reload: cards are never cached). It is listed and counted like a card, and says why it has
 * no Allow button.
 */
export function UnseenWaits(props: { waits: readonly UnseenWait[] }) {
  const ui = useUi();
  const text = (w: UnseenWait) => {
    const view = ui.state().machines.find((m) => m.roomId === w.roomId);
    const params = { title: w.session.title, machine: view?.name ?? '' };
    return ui.blocked(w.roomId) === null
      ? ui.t('truth.unseenFetching', params)
      : ui.t('truth.unseenOffline', params);
  };
  return (
    <For each={props.waits}>
      {(w) => (
        <p class="tr-unseen" role="status">
          <a
            href={routeHref({ name: 'session', roomId: w.roomId, sessionId: w.session.sessionId })}
          >
            {text(w)}
          </a>
        </p>
      )}
    </For>
  );
}
