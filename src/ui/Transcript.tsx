import { For, Show, createEffect, createMemo, createSignal, on, untrack } from 'solid-js';
import type { MachineView } from '../client/machine-view.ts';
import { useUi } from './context.tsx';
import { reasonText } from './widgets.tsx';

// Pages arrive newest first; "Load older" stays while the machine says `more`, and the top of
// what we hold is never presented as the start of the conversation unless `more` is false.
export function Transcript(props: { view: MachineView; sessionId: string }) {
  const ui = useUi();
  const [asked, setAsked] = createSignal(false);
  const page = () => props.view.transcripts[props.sessionId];
  const load = (before?: number) => {
    if (ui.client.getTranscript(props.view.roomId, props.sessionId, before) !== null)
      setAsked(true);
  };
  // The newest page is asked for as soon as the machine can answer (also after a reload, when
  // the screen appears before the link is up).
  createEffect(() => {
    if (!page() && !asked() && ui.blocked(props.view.roomId) === null) untrack(() => load());
  });
  // When the session moves on (a turn ended, a reply landed) the newest page is asked again.
  // A memo, so only a changed value (not every state update) asks again.
  const lastActivity = createMemo(() => props.view.sessions[props.sessionId]?.lastActivity);
  createEffect(
    on(
      lastActivity,
      () => {
        if (untrack(page) && untrack(() => ui.blocked(props.view.roomId)) === null) load();
      },
      { defer: true },
    ),
  );
  const oldestSeq = () => page()?.entries[0]?.seq;
  return (
    <section class="section" aria-labelledby="transcript-title">
      <h2 id="transcript-title">{ui.t('session.transcript')}</h2>
      <Show
        when={page()}
        fallback={
          <button
            type="button"
            class="btn"
            onClick={() => load()}
            disabled={ui.blocked(props.view.roomId) !== null}
          >
            {ui.t('session.loadTranscript')}
          </button>
        }
      >
        {(p) => (
          <>
            <Show
              when={p().more}
              fallback={<p class="hint">{ui.t('session.startOfConversation')}</p>}
            >
              <p class="hint">{ui.t('session.moreBefore')}</p>
              <button type="button" class="btn" onClick={() => load(oldestSeq())}>
                {ui.t('session.loadOlder')}
              </button>
            </Show>
            <Show when={p().reason}>
              <p class="hint">{reasonText(ui.t, p().reason, '')}</p>
            </Show>
            <ol class="transcript">
              <For each={p().entries}>
                {(entry) => (
                  <li class={`entry ${entry.role}`}>
                    <p class="who">
                      {entry.role === 'user'
                        ? ui.t('session.role.user')
                        : ui.t('session.role.assistant')}{' '}
                      · {ui.time(entry.ts)}
                    </p>
                    <p class="text">{entry.text}</p>
                    <Show when={entry.truncated}>
                      <p class="hint">{ui.t('session.entryTruncated')}</p>
                    </Show>
                  </li>
                )}
              </For>
            </ol>
          </>
        )}
      </Show>
      <Show when={asked() && !page()}>
        <p class="hint" role="status">
          {ui.t('link.connecting')}
        </p>
      </Show>
    </section>
  );
}
