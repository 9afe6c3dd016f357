import {
  Show,
  createComputed,
  createEffect,
  createMemo,
  createSignal,
  on,
  onCleanup,
  onMount,
  untrack,
} from 'solid-js';
import type { ClosedNote, MachineView } from '../client/machine-view.ts';
import { timelineOf } from '../client/timeline.ts';
import { gapsOf, olderCursor, reachesStart } from '../client/transcript-merge.ts';
import { ByKey } from './ByKey.tsx';
import { useUi } from './context.tsx';
import { TimelineEntry } from './TimelineItem.tsx';
import { BlockedWhy, reasonText } from './widgets.tsx';
import './truth.css';

/** Gaps filled without a tap per visit; beyond that each gap offers its own button. */
export const MAX_AUTO_FILLS = 6;

/** Items put on the page at first, and added each time the owner reaches the top. */
export const SHOWN_STEP = 150;

/** How close to the page's end counts as "at the newest" (new items then keep it in view). */
const AT_END_PX = 160;

const scroller = () => document.scrollingElement ?? document.documentElement;
const distanceToEnd = () => {
  const s = scroller();
  return s.scrollHeight - s.scrollTop - window.innerHeight;
};
/**
 * Where "the end" is: the newest item — but never past the start of the first open card, since
 * the decision moment needs the card's title, risk and command on screen (its decision bar pins
 * once they are).
 */
const endTarget = () => {
  const s = scroller();
  const card = document.querySelector('.cards .card');
  const header = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
  const cardStart = card ? card.getBoundingClientRect().top + s.scrollTop - header : Infinity;
  return Math.max(0, Math.min(s.scrollHeight - window.innerHeight, cardStart));
};
/** The scroll position this screen set last; a scroll elsewhere is the owner's. */
let lastSet = -1;
export const scrollToEnd = () => {
  const s = scroller();
  s.scrollTop = endTarget();
  lastSet = s.scrollTop;
};

/**
 * SC1 / U3: the session as one conversation, oldest at the top and newest at the end, opened at
 * the newest item. Transcript pages merge by seq (transcript-merge.ts); scrolling up to the top
 * loads the next older page by itself (and "Load older" does the same by tap) while what was on
 * screen stays where it was; a gap between two held ranges is shown (and filled), never presented
 * as the start. New items keep the end in view when the owner was at the end. (Layout cost with
 * 2,000 entries: docs/quality.md, SC1.)
 */
export function Transcript(props: {
  view: MachineView;
  sessionId: string;
  notes: readonly ClosedNote[];
  /** Scroll to the newest item on opening (false when the route focuses a card). */
  openAtEnd: boolean;
}) {
  const ui = useUi();
  const [asked, setAsked] = createSignal(false);
  const page = () => props.view.transcripts[props.sessionId];
  const canAsk = () => ui.blocked(props.view.roomId) === null;
  const load = (before?: number) => {
    if (ui.client.getTranscript(props.view.roomId, props.sessionId, before) !== null)
      setAsked(true);
  };
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
  const all = createMemo(() =>
    timelineOf(page()?.entries ?? [], props.notes, props.view.finals[props.sessionId]),
  );
  // Only the newest items are put on the page at first; scrolling up to the top shows the next
  // SHOWN_STEP held ones before asking the machine for more (a 2,000-entry session took 2.2 s to
  // open with every item laid out; docs/quality.md).
  // The first item shown, by key: undefined until the first items arrive, null = all of them.
  // Pages fetched from the machine while everything is shown are shown as they arrive.
  const [firstKey, setFirstKey] = createSignal<string | null | undefined>(undefined);
  createComputed(() => {
    const list = all();
    if (untrack(firstKey) !== undefined || list.length === 0) return;
    setFirstKey(list.length > SHOWN_STEP ? list[list.length - SHOWN_STEP]!.key : null);
  });
  const items = createMemo(() => {
    const list = all();
    const key = firstKey();
    if (key === undefined) return list.slice(-SHOWN_STEP);
    const at = key === null ? -1 : list.findIndex((i) => i.key === key);
    return at <= 0 ? list : list.slice(at);
  });
  const hiddenHeld = () => all().length > items().length;
  const revealOlder = () => {
    const list = all();
    const at = list.findIndex((i) => i.key === firstKey());
    const next = at - SHOWN_STEP;
    setFirstKey(next <= 0 ? null : list[next]!.key);
  };

  // Older pages: asked once per cursor, by the sentinel coming into view or by the button.
  const askedOlder = new Set<number>();
  let list!: HTMLOListElement;
  let anchor: { key: string; top: number } | null = null;
  const loadOlder = () => {
    if (hiddenHeld()) return revealOlder();
    const p = page();
    const cursor = p ? olderCursor(p) : null;
    if (cursor === null || askedOlder.has(cursor) || !canAsk()) return;
    askedOlder.add(cursor);
    load(cursor);
  };
  // What was on screen stays where it was when older items are put above it: where the first
  // item is is read before the new items reach the page (a computation runs before the DOM is
  // updated), and the page is moved by what they added once they are in (an effect runs after).
  createComputed(
    on(
      () => items()[0]?.key,
      () => {
        const first = list?.querySelector<HTMLElement>('.tl-item');
        anchor = first
          ? { key: first.dataset.key ?? '', top: first.getBoundingClientRect().top }
          : null;
      },
      { defer: true },
    ),
  );
  createEffect(
    on(
      () => items()[0]?.key,
      () => {
        const a = anchor;
        if (!a) return;
        const el = list.querySelector<HTMLElement>(`[data-key="${a.key}"]`);
        if (!el) return;
        anchor = null;
        window.scrollBy(0, el.getBoundingClientRect().top - a.top);
      },
      { defer: true },
    ),
  );
  // The newest item stays in view while the owner is at the end (a reply, a card, a turn end).
  let atEnd = untrack(() => props.openAtEnd);
  const onScroll = () => {
    // Our own moves keep following; the owner's decide: near the end (or the open card) follows.
    if (Math.abs(scroller().scrollTop - lastSet) <= 1) return;
    atEnd =
      distanceToEnd() <= AT_END_PX || Math.abs(endTarget() - scroller().scrollTop) <= AT_END_PX;
  };
  createEffect(
    on(
      () => items().at(-1)?.key,
      () => {
        if (atEnd) requestAnimationFrame(scrollToEnd);
      },
    ),
  );
  let sentinel!: HTMLDivElement;
  // The top of the timeline in view asks for the next older page — also when a page arrives while
  // it already is (a short session: the observer reports changes only).
  // Only once the first page is on screen and the page has been taken to its end (two frames),
  // so opening a session never loads older pages on the way down.
  const [topInView, setTopInView] = createSignal(false);
  const [settled, setSettled] = createSignal(false);
  createEffect(
    on(
      () => page() !== undefined,
      (has) => {
        if (has && !settled())
          requestAnimationFrame(() => requestAnimationFrame(() => setSettled(true)));
      },
    ),
  );
  createEffect(() => {
    if (!settled() || !topInView() || (page()?.entries.length ?? 0) === 0) return;
    // The observer's word may be a frame old: ask only if the top really is on screen now.
    const r = sentinel.getBoundingClientRect();
    if (r.bottom >= 0 && r.top <= window.innerHeight) untrack(loadOlder);
  });
  onMount(() => {
    window.addEventListener('scroll', onScroll, { passive: true });
    // Anything that grows the page while the owner is at the end (a card arriving below the
    // timeline, the Markdown chunk, fonts, an item laid out for the first time) keeps the end in
    // view; once they scroll up, nothing moves under them.
    const growth = new ResizeObserver(() => {
      if (atEnd) scrollToEnd();
    });
    growth.observe(document.body);
    if (atEnd) scrollToEnd();
    const seen = new IntersectionObserver((e) => {
      setTopInView(e.some((x) => x.isIntersecting));
    });
    seen.observe(sentinel);
    onCleanup(() => {
      growth.disconnect();
      seen.disconnect();
      window.removeEventListener('scroll', onScroll);
    });
  });

  return (
    <section class="section tl" aria-labelledby="transcript-title">
      <h2 id="transcript-title" class="visually-hidden">
        {ui.t('tl.label')}
      </h2>
      <div ref={sentinel} class="tl-top">
        <Show when={page()}>
          {(p) => (
            <Show
              when={!reachesStart(p()) || hiddenHeld()}
              fallback={<p class="hint">{ui.t('session.startOfConversation')}</p>}
            >
              <p class="hint">{ui.t('session.moreBefore')}</p>
              <button
                type="button"
                class="btn"
                disabled={!canAsk()}
                onClick={() => {
                  const c = olderCursor(p());
                  if (c !== null) askedOlder.delete(c);
                  loadOlder();
                }}
              >
                {ui.t('session.loadOlder')}
              </button>
            </Show>
          )}
        </Show>
      </div>
      <Show when={page()?.reason}>{(r) => <p class="hint">{reasonText(ui.t, r(), '')}</p>}</Show>
      <Show when={!page()}>
        <button
          type="button"
          class="btn"
          onClick={() => load()}
          disabled={!canAsk()}
          aria-describedby="transcript-why"
        >
          {ui.t('session.loadTranscript')}
        </button>
        <BlockedWhy roomId={props.view.roomId} id="transcript-why" />
      </Show>
      <ol class="transcript tl-list" ref={list}>
        {/* Kept by key: the transcript is asked again whenever the session moves on, and a
            rebuilt row would lose what the owner opened ("Show all") and be parsed again. */}
        <ByKey each={items()} key={(i) => i.key}>
          {(item) => {
            const seq = () => {
              const i = item();
              return i.kind === 'text' || i.kind === 'tool' ? i.entry.seq : null;
            };
            return (
              <>
                <Show when={seq() !== null && gapBefore(seq()!)}>
                  <li class="tr-gap">
                    <p>{ui.t('truth.transcript.gap')}</p>
                    <button
                      type="button"
                      class="btn"
                      disabled={!canAsk()}
                      onClick={() => {
                        const at = seq();
                        if (at !== null) load(at);
                      }}
                    >
                      {ui.t('truth.transcript.loadGap')}
                    </button>
                  </li>
                </Show>
                <TimelineEntry item={item()} machine={props.view.name} />
              </>
            );
          }}
        </ByKey>
      </ol>
      <Show when={asked() && !page()}>
        <p class="hint" role="status">
          {ui.t('link.connecting')}
        </p>
      </Show>
    </section>
  );
}
