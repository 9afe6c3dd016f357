import { Show, createSignal, lazy, Suspense } from 'solid-js';
import {
  MAX_DENY_MESSAGE_CHARS,
  TRUNCATION_SUFFIX,
  type ApprovalRequest,
  type ApprovalRespond,
  type ApprovalScope,
  type Decision,
} from '../../protocol/index.ts';
import { looksLikeDiff } from '../client/diff.ts';
import { canEdit, scopeChoices, type ApprovalChoice } from '../client/extensions.ts';
import { PRESENCE_REFUSALS } from '../client/outbox.ts';
import type { MachineView } from '../client/machine-view.ts';
import { CardClock } from './CardClock.tsx';
import { useUi } from './context.tsx';
import { SessionLink } from './SessionLink.tsx';
import { DecisionBar } from './DecisionBar.tsx';
import { EditField, ScopeChoices } from './ApprovalChoices.tsx';
import { ActionStatus, ErrorAlert, Presence, reasonText } from './widgets.tsx';
import { Icon } from './icons.tsx';
import { headingOf, riskKey } from '../client/card-words.ts';

/** E11: "Run `git push --force origin main`" — the command monospace, the words translated. */
export function RunTitle(props: { command: string }) {
  const ui = useUi();
  const parts = () => ui.t('card.run', { command: '\u0000' }).split('\u0000');
  return (
    <>
      {parts()[0]}
      <code class="title-command">{props.command}</code>
      {parts()[1] ?? ''}
    </>
  );
}

// The diff view is a lazy chunk: most approvals are commands, not patches.
const DiffView = lazy(() => import('./DiffView.tsx'));

export function ApprovalCard(props: {
  view: MachineView;
  approval: ApprovalRequest;
  focus?: boolean;
}) {
  const ui = useUi();
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<string | null>(null);
  const entry = () =>
    ui
      .state()
      .outbox.find(
        (e) =>
          e.kind === 'approval' &&
          e.roomId === props.view.roomId &&
          e.targetId === props.approval.approvalId,
      );
  const blocked = () => ui.blocked(props.view.roomId);
  const reasonId = () => `approval-why-${props.approval.approvalId}`;
  const truncated = () => props.approval.detail.endsWith(TRUNCATION_SUFFIX);
  // E7: the machine's last refusal of an allow of this card (presence-required / -invalid).
  const refusal = () =>
    props.view.errors.find(
      (e) => e.context === props.approval.approvalId && PRESENCE_REFUSALS.includes(e.reason ?? ''),
    );

  // E2/E3: offered only when the machine announced them (extensions.ts, EC).
  const scopes = () => scopeChoices(props.view, props.approval);
  const editable = () =>
    canEdit(props.view, props.approval) ? props.approval.editable : undefined;
  const [editing, setEditing] = createSignal<string | null>(null);
  // E11: what the owner tells the agent with a deny; empty = a plain deny (one tap, as before).
  const [denyMessage, setDenyMessage] = createSignal('');
  const heading = () => headingOf(props.approval);
  /** The title in words, for the buttons' accessible names ("Allow once: Run git push …"). */
  const titleText = () => {
    const h = heading();
    return 'command' in h ? ui.t('card.run', { command: h.command }) : h.title;
  };

  // One decision per approval: the first tap disables every button before anything is awaited.
  const decide = async (decision: Decision, choice: ApprovalChoice = {}) => {
    if (busy() || entry()) return;
    setBusy(true);
    setError(null);
    const result = await ui.client.respondApproval(
      props.view.roomId,
      props.approval.approvalId,
      decision,
      choice,
    );
    if (!result.ok) {
      setError(ui.t(`block.${result.code}`));
      setBusy(false);
    }
  };

  return (
    <article
      class="card approval"
      id={`approval-${props.approval.approvalId}`}
      aria-labelledby={`approval-title-${props.approval.approvalId}`}
      tabindex={-1}
      ref={(el) => props.focus && queueMicrotask(() => el.focus())}
    >
      <p class="card-meta">
        {/* The separator stays with the word before it, so a wrapped line never starts with it. */}
        <span>
          <span class="kind">{ui.t('card.approval')}</span> ·
        </span>
        <span>{props.view.name} ·</span>
        <Presence view={props.view} />
      </p>
      <h3 id={`approval-title-${props.approval.approvalId}`} class="card-title">
        <Show when={heading()} keyed>
          {(h) => ('command' in h ? <RunTitle command={h.command} /> : <>{h.title}</>)}
        </Show>
      </h3>
      <Show when={props.approval.risk}>
        {(r) => (
          <p class="badge risk" data-reason={r().reason}>
            <Icon name="warn" />
            {ui.t('risk.badge', { reason: ui.t(riskKey(r().reason)) })}
          </p>
        )}
      </Show>
      <CardClock
        roomId={props.view.roomId}
        createdAt={props.approval.createdAt}
        expiresAt={props.approval.expiresAt}
      />
      <SessionLink view={props.view} sessionId={props.approval.sessionId} />
      <Show when={truncated()}>
        <span class="badge warn">{ui.t('card.truncated')}</span>
      </Show>
      <Show when={props.view.conflicts?.[props.approval.approvalId]}>
        <p class="why approval-conflict" role="alert">
          {ui.t('approval.conflict')}
        </p>
      </Show>
      <Show
        when={looksLikeDiff(props.approval.detail)}
        fallback={<pre class="detail">{props.approval.detail}</pre>}
      >
        <Suspense fallback={<pre class="detail">{props.approval.detail}</pre>}>
          <DiffView text={props.approval.detail} label={ui.t('card.lines')} />
        </Suspense>
      </Show>
      <Show
        when={entry()}
        fallback={
          <>
            <Show when={editing() === null}>
              <ScopeChoices
                approval={props.approval}
                scopes={scopes()}
                disabled={busy() || blocked() !== null}
                describedBy={blocked() ? reasonId() : undefined}
                onChoose={(scope: ApprovalScope) => void decide('allow', { scope })}
              />
            </Show>
            <Show when={editable()}>
              {(ed) => (
                <Show
                  when={editing() !== null}
                  fallback={
                    <div class="actions">
                      <button
                        type="button"
                        class="btn"
                        disabled={busy()}
                        aria-label={ui.t('ext.editNamed', { title: titleText() })}
                        onClick={() => setEditing(ed().value)}
                      >
                        {ui.t('ext.edit')}
                      </button>
                    </div>
                  }
                >
                  <EditField
                    approvalId={props.approval.approvalId}
                    editable={ed()}
                    value={editing() ?? ''}
                    onInput={setEditing}
                  />
                  <div class="actions">
                    <button
                      type="button"
                      class="btn ghost"
                      disabled={busy()}
                      onClick={() => setEditing(null)}
                    >
                      {ui.t('ext.cancelEdit')}
                    </button>
                  </div>
                </Show>
              )}
            </Show>
            <Show when={editing() === null}>
              <details class="deny-message">
                <summary>{ui.t('deny.messageLabel')}</summary>
                <label class="field">
                  <span class="visually-hidden">{ui.t('deny.messageLabel')}</span>
                  <textarea
                    rows={2}
                    maxLength={MAX_DENY_MESSAGE_CHARS}
                    value={denyMessage()}
                    disabled={busy()}
                    aria-describedby={`deny-hint-${props.approval.approvalId}`}
                    onInput={(e) => setDenyMessage(e.currentTarget.value)}
                  />
                </label>
                <p class="covers" id={`deny-hint-${props.approval.approvalId}`}>
                  {ui.t('deny.messageHint')}
                </p>
              </details>
            </Show>
            <Show when={props.approval.presence}>
              <p class="hint presence-needed">{ui.t('card.presenceNeeded')}</p>
            </Show>
            <Show when={refusal()}>
              {(r) => (
                <p class="why presence-refused" role="alert" data-reason={r().reason}>
                  {reasonText(ui.t, r().reason, r().message)}
                </p>
              )}
            </Show>
            <DecisionBar
              note={
                <>
                  <Show when={scopes().length > 1 && editing() === null}>
                    <p class="covers" id={`covers-once-${props.approval.approvalId}`}>
                      {ui.t('ext.onceCovers')}
                    </p>
                  </Show>
                  <Show when={blocked()}>
                    {(code) => (
                      <p class="why" id={reasonId()}>
                        {ui.t(`block.${code()}`)}
                      </p>
                    )}
                  </Show>
                </>
              }
            >
              <button
                type="button"
                class="btn allow"
                disabled={busy() || blocked() !== null}
                aria-label={
                  editing() !== null
                    ? `${ui.t('ext.allowEdited')}: ${titleText()}`
                    : scopes().length > 1
                      ? ui.t('ext.allowOnceNamed', { title: titleText() })
                      : ui.t('card.allowNamed', { title: titleText() })
                }
                aria-describedby={
                  blocked()
                    ? reasonId()
                    : scopes().length > 1 && editing() === null
                      ? `covers-once-${props.approval.approvalId}`
                      : undefined
                }
                onClick={() => {
                  const edited = editing();
                  void decide('allow', edited === null ? {} : { edited });
                }}
              >
                {editing() !== null
                  ? ui.t('ext.allowEdited')
                  : scopes().length > 1
                    ? ui.t('ext.allowOnce')
                    : ui.t('card.allow')}
              </button>
              <button
                type="button"
                class="btn deny"
                disabled={busy() || blocked() !== null}
                aria-label={ui.t('card.denyNamed', { title: titleText() })}
                aria-describedby={blocked() ? reasonId() : undefined}
                onClick={() => void decide('deny', { message: denyMessage() })}
              >
                {ui.t('card.deny')}
              </button>
            </DecisionBar>
            <ErrorAlert message={error()} />
          </>
        }
      >
        {(e) => (
          <>
            <p class="chosen">
              {ui.t('card.youChose', { decision: ui.t(chosenKey(e().message as ApprovalRespond)) })}{' '}
              <ActionStatus entry={e()} />
            </p>
            <Show when={(e().message as ApprovalRespond).edited}>
              {(edited) => (
                <>
                  <p class="will-run-label">{ui.t('ext.willRun')}</p>
                  <pre class="will-run">{edited()}</pre>
                </>
              )}
            </Show>
          </>
        )}
      </Show>
    </article>
  );
}

/** What "You chose" names: the decision, and for an allow its scope or edit (E2/E3). */
function chosenKey(m: ApprovalRespond) {
  if (m.decision === 'deny') return 'decision.deny' as const;
  if (m.edited !== undefined) return 'decision.allowEdited' as const;
  if (m.scope === 'session') return 'decision.allowSession' as const;
  if (m.scope === 'always') return 'decision.allowAlways' as const;
  return 'decision.allow' as const;
}
