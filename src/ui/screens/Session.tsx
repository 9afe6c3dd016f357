import { For, Show, createSignal } from 'solid-js';
import { openCards } from '../../client/machine-view.ts';
import { routeHref } from '../../client/router.ts';
import { Cards } from '../Cards.tsx';
import { useUi } from '../context.tsx';
import { Steps } from '../Steps.tsx';
import { Transcript } from '../Transcript.tsx';
import {
  ActionStatus,
  AsOf,
  Header,
  PageTitle,
  Presence,
  RelayNotices,
  RepairBanner,
  StateChip,
  reasonText,
} from '../widgets.tsx';

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
  const errors = () => (view()?.errors ?? []).filter((e) => e.sessionId === props.sessionId);
  const final = () => view()?.finals[props.sessionId];
  const [reply, setReply] = createSignal('');
  const [replyError, setReplyError] = createSignal<string | null>(null);
  const lastMessage = () =>
    [...ui.state().outbox]
      .reverse()
      .find(
        (e) => e.kind === 'message' && e.roomId === props.roomId && e.targetId === props.sessionId,
      );

  const send = async (ev: Event) => {
    ev.preventDefault();
    const text = reply().trim();
    if (!text) return;
    const result = await ui.client.sendMessage(props.roomId, props.sessionId, text);
    if (result.ok) {
      setReply('');
      setReplyError(null);
    } else setReplyError(ui.t(`block.${result.code}`));
  };

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
                      <StateChip state={s().state} />
                      <Show when={s().dispatched}>
                        <span class="chip">{ui.t('session.dispatched')}</span>
                      </Show>
                      <Show when={s().access === 'full'}>
                        <span class="chip danger">{ui.t('session.fullAccess')}</span>
                      </Show>
                    </p>
                    <p class="cwd">
                      {ui.t('session.cwd')}: <code>{s().cwd}</code>
                    </p>
                    <Steps session={s()} />
                  </section>
                )}
              </Show>
              <Cards cards={cards()} focus={props.card} />
              <div aria-live="polite">
                <For each={notes()}>
                  {(n) => (
                    <p class="note" role="status">
                      {ui.t(`closed.${n.kind}.${n.resolution}` as 'closed.approval.local', {
                        title: n.title,
                      })}
                    </p>
                  )}
                </For>
              </div>
              <Show when={final()}>
                {(f) => (
                  <section class="section" aria-labelledby="final-title">
                    <h2 id="final-title">
                      {f().ok ? ui.t('session.final') : ui.t('session.finalFailed')}
                    </h2>
                    <p class="summary">{reasonText(ui.t, f().reason, f().summary)}</p>
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
                <form class="reply" onSubmit={(ev) => void send(ev)}>
                  <label class="field">
                    <span>{ui.t('session.reply')}</span>
                    <textarea
                      rows="3"
                      value={reply()}
                      onInput={(ev) => setReply(ev.currentTarget.value)}
                    />
                  </label>
                  <button
                    type="submit"
                    class="btn primary"
                    disabled={ui.blocked(props.roomId) !== null || reply().trim() === ''}
                  >
                    {ui.t('session.send')}
                  </button>
                  <Show when={lastMessage()}>{(e) => <ActionStatus entry={e()} />}</Show>
                  <Show when={replyError()}>
                    <p class="why" role="alert">
                      {replyError()}
                    </p>
                  </Show>
                </form>
              </Show>
            </>
          )}
        </Show>
      </main>
    </>
  );
}
