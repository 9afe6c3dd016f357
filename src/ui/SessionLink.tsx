import { routeHref } from '../client/router.ts';
import type { MachineView } from '../client/machine-view.ts';
import { useUi } from './context.tsx';

/** The card's session, by title; never a bare id (U1): an unlisted one says so. */
export function SessionLink(props: { view: MachineView; sessionId: string }) {
  const ui = useUi();
  const session = () => props.view.sessions[props.sessionId];
  return (
    <a
      class="session-link"
      href={routeHref({ name: 'session', roomId: props.view.roomId, sessionId: props.sessionId })}
    >
      {session()
        ? ui.t('card.session', { title: session()!.title })
        : ui.t('truth.sessionUnlisted', { machine: props.view.name })}
    </a>
  );
}
