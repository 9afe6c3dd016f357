import { For, Show } from 'solid-js';
import { closedTitle } from '../client/card-words.ts';
import type { ClosedNote } from '../client/machine-view.ts';
import { hasKey } from '../i18n/index.ts';
import { useUi } from './context.tsx';
import './truth.css';

/**
 * How cards ended, newest first: the machine's word, or the phone's E1 inference ("demo
 * restarted — no longer pending"), with the decision this phone could not deliver, if any.
 */
export type NoteRef = { roomId: string; note: ClosedNote };

export function ClosedNotes(props: {
  notes: readonly NoteRef[];
  machine: (roomId: string) => string;
}) {
  const ui = useUi();
  // E6: "Allowed from Pixel 8" when another phone decided; this phone's own decision needs no name.
  const byOther = (r: NoteRef) => {
    const by = r.note.by;
    if (!by || by.phoneId === ui.state().phones[r.roomId]?.phoneId) return null;
    const what = r.note.kind === 'question' ? 'answer' : r.note.resolution;
    return what === 'allow' || what === 'deny' || what === 'answer'
      ? ui.t(`closed.by.${what}`, { phone: by.name })
      : null;
  };
  const text = (r: NoteRef) => {
    const n = r.note;
    const key = `closed.${n.kind}.${n.resolution}`;
    // E11.4: "Run npm test", as the open card said, not the machine's "Run a command".
    const title = closedTitle(n, (command) => ui.t('card.run', { command }));
    const params = { title, machine: props.machine(r.roomId) };
    return hasKey(key) ? ui.t(key, params) : ui.t(`closed.${n.kind}.gone`, params);
  };
  const undelivered = (n: ClosedNote) =>
    n.undelivered === 'answer'
      ? ui.t('truth.undeliveredAnswer')
      : ui.t('truth.undelivered', {
          decision: ui.t(n.undelivered === 'deny' ? 'decision.deny' : 'decision.allowWord'),
        });
  return (
    <div aria-live="polite">
      <For each={props.notes}>
        {(r) => (
          <div class="tr-note" role="status">
            <p>{text(r)}</p>
            <Show when={byOther(r)}>{(line) => <p class="tr-by">{line()}</p>}</Show>
            <Show when={r.note.undelivered}>
              <p class="tr-undelivered">{undelivered(r.note)}</p>
            </Show>
          </div>
        )}
      </For>
    </div>
  );
}
