import { Show, createEffect, createSignal, onCleanup } from 'solid-js';
import type { Language } from '../../page-worker/language.ts';
import { PWA_STRINGS } from './strings.ts';
import type { UpdateFlow } from './update-flow.ts';

/** A non-modal banner: it never takes focus, so typing elsewhere is never interrupted. */
export function UpdatePrompt(props: { flow: UpdateFlow | null; language?: Language }) {
  const [waiting, setWaiting] = createSignal(false);
  createEffect(() => {
    const flow = props.flow;
    if (!flow) return;
    setWaiting(flow.waiting());
    onCleanup(flow.onChange(() => setWaiting(flow.waiting())));
  });
  const s = () => PWA_STRINGS[props.language ?? 'en'];
  return (
    <Show when={waiting()}>
      <div class="update-prompt" role="status">
        <span>{s().updateMessage}</span>
        <button
          type="button"
          class="update-prompt__reload"
          onClick={() => props.flow?.applyUpdate()}
        >
          {s().reload}
        </button>
      </div>
    </Show>
  );
}
