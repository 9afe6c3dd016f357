import {
  For,
  Show,
  Suspense,
  createEffect,
  createMemo,
  createSignal,
  lazy,
  on,
  untrack,
} from 'solid-js';
import type { MachineView } from '../client/machine-view.ts';
import { gapsOf, olderCursor, reachesStart } from '../client/transcript-merge.ts';
import { useUi } from './context.tsx';
import { reasonText } from './widgets.tsx';
import './truth.css';

// The Markdown renderer and its parser are a lazy chunk: the text shows at once, plain with its
// line breaks, and is re-rendered as Markdown when the chunk has loaded.
const Markdown = lazy(() => import('./Markdown.tsx'));

/** Gaps filled without a tap per visit; beyond that each gap offers its own button. */
export const MAX_AUTO_FILLS = 6;

// U3: the held entries, merged by seq (transcript-merge.ts). "Load older" stays until the
// oldest held entry is known to be the start; a gap between two held ranges is shown (and
// filled), never presented as the start of the conversation.
export function Transcript(props: { view: MachineView; sessionId: string }) {
  const ui = useUi();
  const [asked, setAsked] = createSignal(false);
  const page = () => props.view.transcripts[props.sessionId];
  const canAsk = () => ui.blocked(props.view.roomId) === null;
  const load = (before?: number) => {
    if (ui.client.getTranscript(props.view.roomId, props.sessionId, before) !== null)
      setAsked(true);
  };
  // The newest page is asked for as soon as the machine can answer (also after a reload, when
  // the screen appears before the link is up).
  createEffect(() => {
    if (!page() && !asked() && canAsk()) untrack(() => load());
  });
  // When the session moves on (a turn ended, a reply landed) the newest page is asked again;
  // it merges with what is on screen, it never replaces it.
  const lastActivity = createMemo(() => props.view.sessions[props.sessionId]?.lastActivity);
  createEffect(
    on(
      lastActivity,
      () => {
        if (untrack(page) && untrack(canAsk)) load();
      },
      { defer: true },
    ),
  );
  // Gaps are filled as they appear (each asked once), up to MAX_AUTO_FILLS per visit.
  const gaps = createMemo(() => {
    const p = page();
    return p ? gapsOf(p) : [];
  });
  const filled = new Set<number>();
  createEffect(() => {
    const open = gaps();
    if (!canAsk()) return;
    for (const before of open) {
      if (filled.has(before) || filled.size >= MAX_AUTO_FILLS) continue;
      filled.add(before);
      untrack(() => load(before));
    }
  });
  const gapBefore = (seq: number) => gaps().includes(seq);
  const roleName = (role: string) =>
    role === 'user' ? ui.t('session.role.user') : ui.t('session.role.assistant');

  return (
    <section class="section" aria-labelledby="transcript-title">
      <h2 id="transcript-title">{ui.t('session.transcript')}</h2>
      <Show
        when={page()}
        fallback={
          <button type="button" class="btn" onClick={() => load()} disabled={!canAsk()}>
            {ui.t('session.loadTranscript')}
          </button>
        }
      >
        {(p) => (
          <>
            <Show
              when={!reachesStart(p())}
              fallback={<p class="hint">{ui.t('session.startOfConversation')}</p>}
            >
              <p class="hint">{ui.t('session.moreBefore')}</p>
              <button
                type="button"
                class="btn"
                disabled={!canAsk()}
                onClick={() => load(olderCursor(p()) ?? undefined)}
              >
                {ui.t('session.loadOlder')}
              </button>
            </Show>
            <Show when={p().reason}>
              <p class="hint">{reasonText(ui.t, p().reason, '')}</p>
            </Show>
            <ol class="transcript">
              <For each={p().entries}>
                {(entry) => (
                  <>
                    <Show when={gapBefore(entry.seq)}>
                      <li class="tr-gap">
                        <p>{ui.t('truth.transcript.gap')}</p>
                        <button
                          type="button"
                          class="btn"
                          disabled={!canAsk()}
                          onClick={() => load(entry.seq)}
                        >
                          {ui.t('truth.transcript.loadGap')}
                        </button>
                      </li>
                    </Show>
                    <li class={`entry ${entry.role}`}>
                      <p class="who">
                        {roleName(entry.role)} · {ui.time(entry.ts)}
                      </p>
                      <Suspense fallback={<p class="tr-plain">{entry.text}</p>}>
                        <Markdown text={entry.text} />
                      </Suspense>
                      <Show when={entry.truncated}>
                        <p class="hint">{ui.t('session.entryTruncated')}</p>
                      </Show>
                    </li>
                  </>
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
