import { Show } from 'solid-js';
import { routeHref } from '../client/router.ts';
import type { MachineView } from '../client/machine-view.ts';
import { useUi } from './context.tsx';

/** The card's session, by title; never a bare id (U1): an unlisted one says so. */
export function SessionLink(props: { view: MachineView; sessionId: string }) {
  const ui = useUi();
  const session = () => props.view.sessions[props.sessionId];
  // On that session's own screen the link leads where the owner is: it only pushed the command
  // down (four lines at 320 px with 200 % text), so it is left out there.
  const here = () => {
    const r = ui.route();
    return (
      r.name === 'session' && r.roomId === props.view.roomId && r.sessionId === props.sessionId
    );
  };
  return (
    <Show when={!here()}>
      <a
        class="session-link"
        href={routeHref({ name: 'session', roomId: props.view.roomId, sessionId: props.sessionId })}
      >
        {session()
          ? ui.t('card.session', { title: session()!.title })
          : ui.t('truth.sessionUnlisted', { machine: props.view.name })}
      </a>
    </Show>
  );
}
