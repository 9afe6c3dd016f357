import { For, Show } from 'solid-js';
import type { Session } from '../../protocol/index.ts';
import { useUi } from './context.tsx';
import { Icon } from './icons.tsx';

/**
 * The current tool and the trail of steps ("read ×5"), with "+N earlier" when cut. U4.2: a real
 * list whose items wrap as whole boxes; the order is drawn inside each item (an arrow), never as
 * an outside list marker that would overlap the item before it.
 */
export function Steps(props: { session: Session }) {
  const ui = useUi();
  const steps = () => props.session.steps ?? [];
  const earlier = () => {
    const total = props.session.stepCount;
    return total !== undefined ? total - steps().reduce((n, s) => n + (s.count ?? 1), 0) : 0;
  };
  return (
    <div class="steps">
      <Show when={props.session.activity}>
        <p class="activity">
          <Icon name="running" />
          {ui.t('session.activity', { tool: props.session.activity! })}
        </p>
      </Show>
      <Show when={steps().length > 0}>
        <ol class="trail" role="list" aria-label={ui.t('session.steps')}>
          <Show when={earlier() > 0}>
            <li class="earlier">{ui.t('session.earlier', { count: earlier() })}</li>
          </Show>
          <For each={steps()}>
            {(step) => (
              <li>
                <span class="step">
                  {step.tool}
                  <Show when={(step.count ?? 1) > 1}> ×{step.count}</Show>
                </span>
              </li>
            )}
          </For>
        </ol>
      </Show>
    </div>
  );
}
