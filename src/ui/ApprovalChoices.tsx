import { For, Show } from 'solid-js';
import type { ApprovalRequest, ApprovalScope, Editable } from '../../protocol/index.ts';
import { useUi } from './context.tsx';

// E2 and E3 on the card, set before the decision bar (DecisionBar.tsx: after what the decision is
// about). Each remembered scope is its own button whose text says exactly what it covers.

export function ScopeChoices(props: {
  approval: ApprovalRequest;
  scopes: ApprovalScope[];
  disabled: boolean;
  describedBy?: string;
  onChoose: (scope: ApprovalScope) => void;
}) {
  const ui = useUi();
  const id = (scope: string) => `covers-${scope}-${props.approval.approvalId}`;
  const key = () => props.approval.rule?.key ?? '';
  const remembered = () => props.scopes.filter((s) => s !== 'once');
  return (
    <Show when={remembered().length > 0}>
      <div class="scope-choices" role="group" aria-label={ui.t('ext.remember')}>
        <For each={remembered()}>
          {(scope) => (
            <div class="scope-choice">
              <button
                type="button"
                class="btn"
                disabled={props.disabled}
                aria-describedby={[id(scope), props.describedBy].filter(Boolean).join(' ')}
                onClick={() => props.onChoose(scope)}
              >
                {scope === 'session'
                  ? ui.t('ext.allowSession')
                  : ui.t('ext.allowAlways', { key: key() })}
              </button>
              <p class="covers" id={id(scope)}>
                {scope === 'session'
                  ? ui.t('ext.sessionCovers', { key: key() })
                  : ui.t('ext.alwaysCovers', { key: key() })}
              </p>
            </div>
          )}
        </For>
      </div>
    </Show>
  );
}

/** E3: the command in a monospace field, and below it exactly what will run. */
export function EditField(props: {
  approvalId: string;
  editable: Editable;
  value: string;
  onInput: (value: string) => void;
}) {
  const ui = useUi();
  const changed = () => props.value !== props.editable.value;
  return (
    <div class="edit-box">
      <label class="field">
        {props.editable.label}
        <textarea
          class="mono"
          rows={3}
          spellcheck={false}
          autocapitalize="off"
          autocomplete="off"
          value={props.value}
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
      </label>
      <p class="will-run-label" id={`will-run-${props.approvalId}`}>
        {ui.t('ext.willRun')}
      </p>
      <pre class="will-run" aria-labelledby={`will-run-${props.approvalId}`}>
        {props.value}
      </pre>
      <p class="covers">{changed() ? ui.t('ext.editedNote') : ui.t('ext.editSame')}</p>
    </div>
  );
}
