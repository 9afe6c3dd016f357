import { For, Show } from 'solid-js';
import { sessionCounts } from '../client/machine-view.ts';
import { routeHref } from '../client/router.ts';
import { waitingOf } from '../client/waiting.ts';
import { Cards } from './Cards.tsx';
import { ConnectionBanner } from './ConnectionBanner.tsx';
import { useUi } from './context.tsx';
import { UnseenWaits } from './UnseenWaits.tsx';
import { AsOf, Header, Presence, RelayNotices, RepairBanner } from './widgets.tsx';

export default function Inbox() {
  const ui = useUi();
  // U1: the list, the counts and the chips come from one store (waiting.ts).
  const waiting = () => waitingOf(ui.state().machines);
  const cards = () => waiting().cards;
  const relays = () => [...new Set(ui.state().machines.map((m) => m.relay))];

  return (
    <>
      <Header title={ui.t('inbox.title')} />
      <main class="page">
        <ConnectionBanner views={ui.state().machines} />
        <RelayNotices relays={relays()} />
        <section class="section" aria-labelledby="inbox-waiting">
          <h2 id="inbox-waiting">{ui.t('inbox.waiting')}</h2>
          <Show when={waiting().total === 0}>
            <p class="empty">{ui.t('inbox.nothingWaiting')}</p>
          </Show>
          <Cards cards={cards()} />
          <UnseenWaits waits={waiting().unseen} />
        </section>
        <section class="section" aria-labelledby="inbox-machines">
          <h2 id="inbox-machines">{ui.t('inbox.machines')}</h2>
          <Show when={ui.state().ready && ui.state().machines.length === 0}>
            <p class="empty">{ui.t('inbox.noMachines')}</p>
          </Show>
          <ul class="list">
            <For each={ui.state().machines}>
              {(view) => {
                const counts = () => sessionCounts(view);
                return (
                  <li>
                    <a class="row" href={routeHref({ name: 'machine', roomId: view.roomId })}>
                      <span class="row-title">{view.name}</span>
                      <Presence view={view} />
                      <span class="row-sub">
                        {ui.t('inbox.counts', {
                          running: counts().running,
                          waiting: counts().waiting,
                        })}
                      </span>
                    </a>
                    <RepairBanner view={view} />
                    <AsOf view={view} />
                  </li>
                );
              }}
            </For>
          </ul>
          <div class="actions">
            <a class="btn primary" href={routeHref({ name: 'pair' })}>
              {ui.t('inbox.pair')}
            </a>
            <Show when={ui.state().machines.length > 0}>
              <a class="btn" href={routeHref({ name: 'new' })}>
                {ui.t('inbox.newSession')}
              </a>
            </Show>
          </div>
        </section>
      </main>
    </>
  );
}
