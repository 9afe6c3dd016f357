import { For, Show } from 'solid-js';
import type { MachineView } from '../client/machine-view.ts';
import { sessionCounts } from '../client/machine-view.ts';
import { routeHref } from '../client/router.ts';
import { waitingOf } from '../client/waiting.ts';
import type { Session } from '../../protocol/index.ts';
import { Cards } from './Cards.tsx';
import { ConnectionBanner } from './ConnectionBanner.tsx';
import { PhoneNotices } from './PhoneNotices.tsx';
import { useUi } from './context.tsx';
import { UnseenWaits } from './UnseenWaits.tsx';
import { Icon } from './icons.tsx';
import {
  AsOf,
  Header,
  PairLink,
  Presence,
  RelayNotices,
  RepairBanner,
  RowLink,
  StateChip,
} from './widgets.tsx';

/** U4.5: the inbox lists failed sessions too (newest first, a few), not only open cards. */
export const MAX_FAILED_SHOWN = 5;

function failedSessions(views: readonly MachineView[]): { view: MachineView; session: Session }[] {
  return views
    .flatMap((view) =>
      Object.values(view.sessions)
        .filter((s) => s.state === 'error')
        .map((session) => ({ view, session })),
    )
    .sort((a, b) => b.session.lastActivity - a.session.lastActivity);
}

export default function Inbox() {
  const ui = useUi();
  // U1: the list, the counts and the chips come from one store (waiting.ts).
  const waiting = () => waitingOf(ui.state().machines);
  const cards = () => waiting().cards;
  const relays = () => [...new Set(ui.state().machines.map((m) => m.relay))];
  const paired = () => ui.state().machines.length > 0;
  const failed = () => failedSessions(ui.state().machines);

  return (
    <>
      <Header title={ui.t('inbox.title')} />
      <main class="page">
        <ConnectionBanner views={ui.state().machines} />
        <RelayNotices relays={relays()} />
        <PhoneNotices />
        <Show when={ui.state().ready && !paired()}>
          <section class="card first-run" aria-labelledby="first-run-title">
            <h2 id="first-run-title">{ui.t('inbox.firstRunTitle')}</h2>
            <p class="empty">{ui.t('inbox.noMachines')}</p>
            <p>
              {ui.t('inbox.firstRunBefore')}
              <code>npm start</code>
              {ui.t('inbox.firstRunAfter')}
            </p>
            <div class="actions">
              <PairLink primary />
            </div>
          </section>
        </Show>
        <Show when={paired() || waiting().total > 0}>
          <section class="section" aria-labelledby="inbox-waiting">
            <h2 id="inbox-waiting">{ui.t('inbox.waiting')}</h2>
            <Show when={waiting().total === 0}>
              <p class="empty">{ui.t('inbox.nothingWaiting')}</p>
            </Show>
            <Cards cards={cards()} />
            <UnseenWaits waits={waiting().unseen} />
          </section>
        </Show>
        <Show when={failed().length > 0}>
          <section class="section" aria-labelledby="inbox-failed">
            <h2 id="inbox-failed">{ui.t('inbox.failed')}</h2>
            <ul class="list">
              <For each={failed().slice(0, MAX_FAILED_SHOWN)}>
                {({ view, session }) => (
                  <li>
                    <RowLink
                      href={routeHref({
                        name: 'session',
                        roomId: view.roomId,
                        sessionId: session.sessionId,
                      })}
                    >
                      <span class="row-title">{session.title}</span>
                      <span class="row-sub">
                        <StateChip state={session.state} />
                        {view.name} · {ui.time(session.lastActivity)}
                      </span>
                    </RowLink>
                  </li>
                )}
              </For>
            </ul>
            <Show when={failed().length > MAX_FAILED_SHOWN}>
              <p class="hint">
                {ui.t('inbox.failedMore', { count: failed().length - MAX_FAILED_SHOWN })}
              </p>
            </Show>
          </section>
        </Show>
        <Show when={paired()}>
          <section class="section" aria-labelledby="inbox-machines">
            <h2 id="inbox-machines">{ui.t('inbox.machines')}</h2>
            <ul class="list">
              <For each={ui.state().machines}>
                {(view) => {
                  const counts = () => sessionCounts(view);
                  return (
                    <li>
                      <RowLink href={routeHref({ name: 'machine', roomId: view.roomId })}>
                        <span class="row-title">{view.name}</span>
                        <span class="row-sub">
                          <Presence view={view} />
                        </span>
                        <span class="row-sub">
                          {ui.t('inbox.counts', {
                            running: counts().running,
                            waiting: counts().waiting,
                          })}
                        </span>
                      </RowLink>
                      <RepairBanner view={view} />
                      <AsOf view={view} />
                    </li>
                  );
                }}
              </For>
            </ul>
            <div class="actions">
              <a class="btn primary" href={routeHref({ name: 'new' })}>
                <Icon name="plus" />
                {ui.t('inbox.newSession')}
              </a>
              <PairLink />
            </div>
          </section>
        </Show>
      </main>
    </>
  );
}
