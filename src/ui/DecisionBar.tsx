import { createSignal, onCleanup, onMount, type JSX } from 'solid-js';

/**
 * U4.1, the decision moment: the buttons that decide a card (Allow / Deny today; later "Allow
 * once" and Deny), kept in thumb reach without ever offering Allow for something not yet seen.
 *
 * Place it as a direct child of the card's <article>, after what the decision is about (the
 * element with class `detail` or `diff`, else the whole card) and after anything the owner may
 * read or set before deciding (remembered scopes, an Edit field). Once that subject has been on
 * screen whole above the bar (or scrolled past), the bar is pinned (CSS `sticky`) to the bottom
 * of the viewport, above the safe-area inset, for as long as the card is on screen; before that
 * it stays in place at the card's end. So Allow is never on screen before what it allows, and,
 * being in the card's flow, the bar never covers the card's start nor goes under the header.
 * `note` (why the buttons are disabled) travels with the buttons.
 */
export function DecisionBar(props: { children: JSX.Element; note?: JSX.Element }) {
  const [pinned, setPinned] = createSignal(false);
  let bar!: HTMLDivElement;
  onMount(() => {
    const card = bar.parentElement!;
    let frame = 0;
    const check = () => {
      frame = 0;
      const subject = card.querySelector('.detail, .diff') ?? card;
      // What sits above the bar in the card (scope buttons, the Edit field) keeps this much clear
      // when scrolled into view (CSS scroll-margin-bottom), so the pinned bar never covers it.
      card.style.setProperty('--decision-bar-h', `${bar.offsetHeight}px`);
      setPinned(subject.getBoundingClientRect().bottom <= window.innerHeight - bar.offsetHeight);
    };
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(check);
    };
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    // U4: any layout change re-measures — a banner above, the text size, fonts, rotation, the
    // bar's own wrap — so the space it reserves is always its real height.
    const sizes = new ResizeObserver(schedule);
    sizes.observe(bar);
    sizes.observe(card);
    sizes.observe(document.body);
    void document.fonts?.ready.then(schedule);
    schedule();
    onCleanup(() => {
      sizes.disconnect();
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
    });
  });
  return (
    <div ref={bar} class="actions decision-bar" classList={{ pinned: pinned() }}>
      <div class="decision-buttons">{props.children}</div>
      {props.note}
    </div>
  );
}
