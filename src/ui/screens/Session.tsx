import { For, Show, Suspense, lazy } from 'solid-js';
import { agentLine } from '../../client/agent-line.ts';
import { openCards } from '../../client/machine-view.ts';
import { refusesMessage } from '../../client/outbox.ts';
import { routeHref } from '../../client/router.ts';
import { Cards } from '../Cards.tsx';
import { ConnectionBanner } from '../ConnectionBanner.tsx';
import { useUi } from '../context.tsx';
import { ReplyBox } from '../ReplyBox.tsx';
import { SessionChip } from '../SessionChip.tsx';
import { Steps } from '../Steps.tsx';
import { StopButton } from '../StopButton.tsx';
import { Transcript } from '../Transcript.tsx';
import {
  AsOf,
  Header,
  PageTitle,
  Presence,
  RelayNotices,
  RepairBanner,
  reasonText,
} from '../widgets.tsx';
import '../truth.css';

const Markdown = lazy(() => import('../Markdown.tsx'));

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
  const notes = () =>
    (view()?.closed ?? [])
      .filter((n) => n.sessionId === props.sessionId)
      .map((note) => ({ roomId: props.roomId, note }));
  // A refused reply is shown beside the reply box (U2), not again up here.
  const errors = () =>
    (view()?.errors ?? []).filter(
      (e) => e.sessionId === props.sessionId && !(session()?.live === true && refusesMessage(e)),
    );
  const final = () => view()?.finals[props.sessionId];

  return (
    <>
      <Header
        title={session()?.title ?? ui.t('session.transcript')}
        back={{ name: 'machine', roomId: props.roomId }}
      />
      <main class="page">
        <Show when={view()} fallback={<p class="empty">{ui.t('machine.unknown')}</p>}>
          {(v) => (
            <>
              <ConnectionBanner views={[v()]} machines />
              <RelayNotices relays={[v().relay]} />
              <RepairBanner view={v()} />
              <Show when={session()}>{(s) => <PageTitle>{s().title}</PageTitle>}</Show>
              <p class="status-line">
                <a href={routeHref({ name: 'machine', roomId: v().roomId })}>{v().name}</a> ·{' '}
                <Presence view={v()} />
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
                      <Show when={s().access === 'full'}>
                        <span class="chip danger">{ui.t('session.fullAccess')}</span>
                      </Show>
                    </p>
                    <p class="cwd">
                      {ui.t('session.cwd')}
                      <code>{s().cwd}</code>
                    </p>
                    <Show when={agentLine(s())}>
                      {(line) => (
                        <p class="cwd">
                          {ui.t('session.agent')}
                          <code>{line()}</code>
                        </p>
                      )}
                    </Show>
                    <Steps session={s()} />
                    <StopButton view={v()} session={s()} />
                  </section>
                )}
              </Show>
              <Cards cards={cards()} notes={notes()} focus={props.card} />
              <Show when={final()}>
                {(f) => (
                  <section class="section" aria-labelledby="final-title">
                    <h2 id="final-title">
                      {f().ok ? ui.t('session.final') : ui.t('session.finalFailed')}
                    </h2>
                    <Suspense
                      fallback={<p class="tr-plain">{reasonText(ui.t, f().reason, f().summary)}</p>}
                    >
                      <Markdown text={reasonText(ui.t, f().reason, f().summary)} />
                    </Suspense>
                  </section>
                )}
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
              <Show when={session()}>
                <Transcript view={v()} sessionId={props.sessionId} />
              </Show>
              <Show
                when={session()?.live === true}
                fallback={
                  <Show when={session()}>
                    <p class="hint">{ui.t('session.notLive')}</p>
                  </Show>
                }
              >
                <ReplyBox roomId={props.roomId} sessionId={props.sessionId} cards={cards()} />
              </Show>
            </>
          )}
        </Show>
      </main>
    </>
  );
}
