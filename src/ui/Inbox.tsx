import { Index, Show } from 'solid-js';
import { startedAtDesk } from '../client/extensions.ts';
import { sessionCounts } from '../client/machine-view.ts';
import { routeHref } from '../client/router.ts';
import { recentSessions } from '../client/recent-sessions.ts';
import { waitingOf } from '../client/waiting.ts';
import { Cards } from './Cards.tsx';
import { ConnectionBanner } from './ConnectionBanner.tsx';
import { PhoneNotices } from './PhoneNotices.tsx';
import { SessionChip } from './SessionChip.tsx';
import { ByKey } from './ByKey.tsx';
import { useUi } from './context.tsx';
import { UnseenWaits } from './UnseenWaits.tsx';
import { Icon } from './icons.tsx';
import {
  useAsOf,
  Header,
  PairLink,
  Presence,
  RelayNotices,
  RepairBanner,
  PhonesWaitingBanner,
  WaitingBanner,
  RowLink,
} from './widgets.tsx';

export default function Inbox() {
  const ui = useUi();
  // U1: the list, the counts and the chips come from one store (waiting.ts).
  const waiting = () => waitingOf(ui.state().machines);
  const cards = () => waiting().cards;
  const relays = () => [...new Set(ui.state().machines.map((m) => m.relay))];
  const paired = () => ui.state().machines.length > 0;
  // SC5: every machine's sessions, newest first, bounded; each row's state never misleads.
  const recent = () => recentSessions(ui.state().machines);

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
        <Show when={paired()}>
          <section class="section" aria-labelledby="inbox-machines">
            <h2 id="inbox-machines">{ui.t('inbox.machines')}</h2>
            <ul class="list">
              <ByKey each={ui.state().machines} key={(m) => m.roomId}>
                {(view) => {
                  const counts = () => sessionCounts(view());
                  // SC3.3: a machine that is away is not known to be running anything now.
                  const asOf = useAsOf(view);
                  return (
                    <li>
                      <RowLink href={routeHref({ name: 'machine', roomId: view().roomId })}>
                        <span class="row-title">{view().name}</span>
                        <span class="row-sub">
                          <Presence view={view()} />
                        </span>
                        <span class="row-sub">
                          {ui.t(asOf() === null ? 'inbox.counts' : 'inbox.countsAsOf', {
                            running: counts().running,
                            waiting: counts().waiting,
                            time: asOf() === null ? '' : ui.time(asOf()!),
                          })}
                        </span>
                      </RowLink>
                      <RepairBanner view={view()} />
                      <WaitingBanner view={view()} />
                      <PhonesWaitingBanner view={view()} />
                    </li>
                  );
                }}
              </ByKey>
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
        <Show when={paired()}>
          <section class="section" aria-labelledby="inbox-sessions">
            <h2 id="inbox-sessions">{ui.t('inbox.sessions')}</h2>
            <Show
              when={recent().total > 0}
              fallback={<p class="empty">{ui.t('inbox.noSessions')}</p>}
            >
              <ul class="list sessions">
                {/* Index: rows keep their DOM (and focus) while the list is recomputed. */}
                <Index each={recent().rows}>
                  {(row) => (
                    <li>
                      <RowLink
                        href={routeHref({
                          name: 'session',
                          roomId: row().view.roomId,
                          sessionId: row().session.sessionId,
                        })}
                      >
                        <span class="row-title one-line">{row().session.title}</span>
                        <span class="row-sub">
                          <SessionChip view={row().view} session={row().session} />
                          {/* E10: a session started in a terminal says so, and where: the
                              phone did not choose its folder. */}
                          <Show when={startedAtDesk(row().session)}>
                            <span class="chip">{ui.t('session.atDeskChip')}</span>
                          </Show>
                          <span class="row-meta">
                            {row().view.name} · {ui.when(row().session.lastActivity)}
                          </span>
                        </span>
                        <Show when={startedAtDesk(row().session)}>
                          <span class="row-sub row-folder">
                            <span class="cwd-label">{ui.t('session.cwd')}</span>
                            <code>{row().session.cwd}</code>
                          </span>
                        </Show>
                      </RowLink>
                    </li>
                  )}
                </Index>
              </ul>
            </Show>
            <Show when={recent().total > recent().rows.length}>
              <p class="hint">
                {ui.t('inbox.sessionsMore', { count: recent().total - recent().rows.length })}
              </p>
            </Show>
          </section>
        </Show>
      </main>
    </>
  );
}
