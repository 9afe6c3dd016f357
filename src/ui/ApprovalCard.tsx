import { Show, createSignal, lazy, Suspense } from 'solid-js';
import { TRUNCATION_SUFFIX, type ApprovalRequest, type Decision } from '../../protocol/index.ts';
import { looksLikeDiff } from '../client/diff.ts';
import type { MachineView } from '../client/machine-view.ts';
import { CardClock } from './CardClock.tsx';
import { useUi } from './context.tsx';
import { SessionLink } from './SessionLink.tsx';
import { DecisionBar } from './DecisionBar.tsx';
import { ActionStatus, Presence } from './widgets.tsx';

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

  // One decision per approval: the first tap disables both buttons before anything is awaited.
  const decide = async (decision: Decision) => {
    if (busy() || entry()) return;
    setBusy(true);
    const result = await ui.client.respondApproval(
      props.view.roomId,
      props.approval.approvalId,
      decision,
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
        <span class="kind">{ui.t('card.approval')}</span> · {props.view.name} ·{' '}
        <Presence view={props.view} />
      </p>
      <h3 id={`approval-title-${props.approval.approvalId}`}>{props.approval.title}</h3>
      <CardClock
        roomId={props.view.roomId}
        createdAt={props.approval.createdAt}
        expiresAt={props.approval.expiresAt}
      />
      <SessionLink view={props.view} sessionId={props.approval.sessionId} />
      <Show when={truncated()}>
        <span class="badge warn">{ui.t('card.truncated')}</span>
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
            <DecisionBar
              note={
                <Show when={blocked()}>
                  {(code) => (
                    <p class="why" id={reasonId()}>
                      {ui.t(`block.${code()}`)}
                    </p>
                  )}
                </Show>
              }
            >
              <button
                type="button"
                class="btn allow"
                disabled={busy() || blocked() !== null}
                aria-label={ui.t('card.allowNamed', { title: props.approval.title })}
                aria-describedby={blocked() ? reasonId() : undefined}
                onClick={() => void decide('allow')}
              >
                {ui.t('card.allow')}
              </button>
              <button
                type="button"
                class="btn deny"
                disabled={busy() || blocked() !== null}
                aria-label={ui.t('card.denyNamed', { title: props.approval.title })}
                aria-describedby={blocked() ? reasonId() : undefined}
                onClick={() => void decide('deny')}
              >
                {ui.t('card.deny')}
              </button>
            </DecisionBar>
            <Show when={error()}>
              <p class="why" role="alert">
                {error()}
              </p>
            </Show>
          </>
        }
      >
        {(e) => (
          <p class="chosen">
            {ui.t('card.youChose', {
              decision: ui.t(
                e().message.type === 'approval.respond' &&
                  (e().message as { decision: Decision }).decision === 'deny'
                  ? 'decision.deny'
                  : 'decision.allow',
              ),
            })}{' '}
            <ActionStatus entry={e()} />
          </p>
        )}
      </Show>
    </article>
  );
}
