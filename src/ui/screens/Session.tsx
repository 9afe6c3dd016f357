import { For, Show } from 'solid-js';
import { agentLine } from '../../client/agent-line.ts';
import { openCards } from '../../client/machine-view.ts';
import { startedAtDesk } from '../../client/extensions.ts';
import { refusesMessage } from '../../client/outbox.ts';
import { routeHref } from '../../client/router.ts';
import { Cards } from '../Cards.tsx';
import { ConnectionBanner } from '../ConnectionBanner.tsx';
import { useUi } from '../context.tsx';
import { ReplyBox } from '../ReplyBox.tsx';
import { SessionChip } from '../SessionChip.tsx';
import { SessionEnded } from '../SessionEnded.tsx';
import { Steps } from '../Steps.tsx';
import { StopButton } from '../StopButton.tsx';
import { Transcript } from '../Transcript.tsx';
import { WaitingChip } from '../WaitingChip.tsx';
import {
  AsOf,
  Header,
  PageTitle,
  Presence,
  RelayNotices,
  RepairBanner,
  WaitingBanner,
  reasonText,
} from '../widgets.tsx';
import '../truth.css';

/**
 * SC1: the session as a conversation — what it is (title, folder, steps) at the top, then one
 * timeline oldest to newest with every card's outcome where it was asked, the open cards pinned
 * after the newest item, Stop and the reply box at the end; it opens at the end. A "waiting" chip
 * jumps to the open cards from anywhere on the page.
 */
export default function SessionScreen(props: {
  roomId: string;
  sessionId: string;
  card?: { kind: 'approval' | 'question'; id: string };
}) {
  const ui = useUi();
  const view = () => ui.state().machines.find((m) => m.roomId === props.roomId);
  const session = () => view()?.sessions[props.sessionId];
  const cards = () => {
    const v = view();
    return v ? openCards([v], props.sessionId) : [];
  };
  const notes = () => (view()?.closed ?? []).filter((n) => n.sessionId === props.sessionId);
  // A refused reply is shown beside the reply box (U2), not again up here.
  const errors = () =>
    (view()?.errors ?? []).filter(
      (e) => e.sessionId === props.sessionId && !(session()?.live === true && refusesMessage(e)),
    );

  return (
    <>
      <Header
        title={session()?.title ?? ui.t('session.transcript')}
        back={{ name: 'machine', roomId: props.roomId }}
      />
      <main class="page session-page">
        <Show when={view()} fallback={<p class="empty">{ui.t('machine.unknown')}</p>}>
          {(v) => (
            <>
              <ConnectionBanner views={[v()]} machines />
              <RelayNotices relays={[v().relay]} />
              <RepairBanner view={v()} />
              <WaitingBanner view={v()} />
              <Show when={session()?.ended}>
                {(e) => <SessionEnded view={v()} sessionId={props.sessionId} reason={e().reason} />}
              </Show>
              <Show when={session()}>{(s) => <PageTitle>{s().title}</PageTitle>}</Show>
              <p class="status-line">
                <a class="machine-link" href={routeHref({ name: 'machine', roomId: v().roomId })}>
                  {v().name}
                </a>{' '}
                · <Presence view={v()} />
              </p>
              <AsOf view={v()} />
              <Show when={session()} fallback={<p class="empty">{ui.t('session.unknown')}</p>}>
                {(s) => (
                  <section class="section" aria-label={s().title}>
                    <p class="chips">
                      <SessionChip view={v()} session={s()} />
                      <Show when={s().dispatched}>
                        <span class="chip">{ui.t('session.dispatched')}</span>
                      </Show>
                      <Show when={startedAtDesk(s())}>
                        <span class="chip">{ui.t('session.atDeskChip')}</span>
                      </Show>
                      <Show when={s().access === 'full'}>
                        <span class="chip danger">{ui.t('session.fullAccess')}</span>
                      </Show>
                    </p>
                    <p class="cwd">
                      <span class="cwd-label">{ui.t('session.cwd')}</span>
                      <code>{s().cwd}</code>
                    </p>
                    <Show when={agentLine(s())}>
                      {(line) => (
                        <p class="cwd">
                          <span class="cwd-label">{ui.t('session.agent')}</span>
                          <code>{line()}</code>
                        </p>
                      )}
                    </Show>
                    <Steps session={s()} />
                  </section>
                )}
              </Show>
              <Show when={session()}>
                <Transcript
                  view={v()}
                  sessionId={props.sessionId}
                  notes={notes()}
                  openAtEnd={props.card === undefined}
                />
              </Show>
              <Show when={errors().length > 0}>
                <section class="section" aria-labelledby="errors-title">
                  <h2 id="errors-title">{ui.t('session.errors')}</h2>
                  <For each={errors()}>
                    {(e) => (
                      <p class="banner bad">
                        {ui.time(e.at)} — {reasonText(ui.t, e.reason, e.message)}
                      </p>
                    )}
                  </For>
                </section>
              </Show>
              <Cards cards={cards()} notes={[]} focus={props.card} />
              <Show when={session()}>{(s) => <StopButton view={v()} session={s()} />}</Show>
              <Show
                when={session()?.live === true && !session()?.ended}
                fallback={
                  <Show when={session() && !session()?.ended}>
                    <p class="hint">
                      {ui.t(startedAtDesk(session()!) ? 'session.atDesk' : 'session.notLive')}
                    </p>
                  </Show>
                }
              >
                <ReplyBox roomId={props.roomId} sessionId={props.sessionId} cards={cards()} />
              </Show>
              <WaitingChip cards={cards()} />
            </>
          )}
        </Show>
      </main>
    </>
  );
}
