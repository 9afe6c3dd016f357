import { Show, createEffect, createSignal, onCleanup } from 'solid-js';
import type { UpdateFlow } from './update-flow.ts';

export type UpdatePromptLabels = { message: string; reload: string };
const ENGLISH: UpdatePromptLabels = { message: 'New version available.', reload: 'Reload' };

/** A non-modal banner: it never takes focus, so typing elsewhere is never interrupted. */
export function UpdatePrompt(props: { flow: UpdateFlow | null; labels?: UpdatePromptLabels }) {
  const [waiting, setWaiting] = createSignal(false);
  createEffect(() => {
    const flow = props.flow;
    if (!flow) return;
    setWaiting(flow.waiting());
    onCleanup(flow.onChange(() => setWaiting(flow.waiting())));
  });
  const labels = () => props.labels ?? ENGLISH;
  return (
    <Show when={waiting()}>
      <div class="update-prompt" role="status">
        <span>{labels().message}</span>
        <button
          type="button"
          class="update-prompt__reload"
          onClick={() => props.flow?.applyUpdate()}
        >
          {labels().reload}
        </button>
      </div>
    </Show>
  );
}
