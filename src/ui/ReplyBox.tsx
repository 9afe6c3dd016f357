import { For, Show, createMemo, createSignal } from 'solid-js';
import { MAX_MESSAGE_BYTES, MAX_MESSAGE_CHARS } from '../../protocol/index.ts';
import { draftKeys } from '../client/drafts.ts';
import type { OpenCard } from '../client/machine-view.ts';
import type { ReplyNote } from '../client/reply-notes.ts';
import { countText } from '../client/text-count.ts';
import { useUi } from './context.tsx';
import { TextCounter } from './TextCounter.tsx';
import { ActionStatus, BlockedWhy, reasonText } from './widgets.tsx';
import './truth.css';

const cardElementId = (c: OpenCard) =>
  c.kind === 'approval' ? `approval-${c.approval.approvalId}` : `question-${c.question.questionId}`;

/**
 * U2: the reply box. What is typed is a draft kept on this phone (drafts.ts) until the machine
 * confirmed it; the counter and Send follow the machine's limits; a refusal puts the text back
 * with the reason right here; sent replies are listed in order, Sent → Unconfirmed → Delivered.
 * A question or approval that arrives meanwhile is announced here, where the owner is looking.
 */
export function ReplyBox(props: { roomId: string; sessionId: string; cards: OpenCard[] }) {
  const ui = useUi();
  const key = () => draftKeys.reply(props.roomId, props.sessionId);
  const text = () => ui.state().drafts[key()] ?? '';
  const count = createMemo(() => countText(text().trim(), MAX_MESSAGE_CHARS, MAX_MESSAGE_BYTES));
  const [blockedCode, setBlockedCode] = createSignal<string | null>(null);
  const [sentAt, setSentAt] = createSignal(0);
  const pending = () =>
    ui
      .state()
      .outbox.filter(
        (e) => e.kind === 'message' && e.roomId === props.roomId && e.targetId === props.sessionId,
      );
  const notes = (): ReplyNote[] => ui.state().replyNotes[key()] ?? [];
  const delivered = () => notes().filter((n) => n.outcome === 'delivered');
  // The newest refusal, unless the owner has sent again since.
  const refusal = () => {
    const last = notes().at(-1);
    return last && last.outcome !== 'delivered' && last.at >= sentAt() ? last : undefined;
  };
  const errorText = () => {
    const code = blockedCode();
    if (code) return ui.t(`block.${code}` as 'block.offline');
    const r = refusal();
    if (!r) return '';
    if (r.outcome === 'expired') return ui.t('truth.reply.expired');
    return ui.t('truth.reply.refused', { reason: reasonText(ui.t, r.reason, r.message) });
  };
  const waitingLabel = () => {
    const questions = props.cards.filter((c) => c.kind === 'question').length;
    const approvals = props.cards.length - questions;
    if (approvals === 0 && questions === 1) return ui.t('truth.reply.questionOne');
    if (approvals === 0) return ui.t('truth.reply.questionMany', { count: questions });
    if (questions === 0 && approvals === 1) return ui.t('truth.reply.approvalOne');
    if (questions === 0) return ui.t('truth.reply.approvalMany', { count: approvals });
    return ui.t('truth.reply.requestsMany', { count: props.cards.length });
  };
  const showFirstCard = () => {
    const first = props.cards[0];
    const el = first ? document.getElementById(cardElementId(first)) : null;
    el?.scrollIntoView({ block: 'start' });
    el?.focus();
  };

  const send = async (ev: Event) => {
    ev.preventDefault();
    const body = text().trim();
    if (!body || count().over) return;
    setSentAt(Date.now());
    const result = await ui.client.sendMessage(props.roomId, props.sessionId, body);
    if (!result.ok) return setBlockedCode(result.code);
    setBlockedCode(null);
    // The text now lives in the outbox until the machine confirms it; a refusal puts it back.
    ui.client.setDraft(key(), '');
  };

  return (
    <form class="reply" onSubmit={(ev) => void send(ev)}>
      <div aria-live="polite">
        <Show when={props.cards.length > 0}>
          <button
            type="button"
            id="reply-waiting"
            class="btn tr-waiting-chip"
            onClick={showFirstCard}
          >
            {waitingLabel()}
          </button>
        </Show>
      </div>
      <Show when={delivered().length + pending().length > 0}>
        <section aria-label={ui.t('truth.reply.list')}>
          <ol class="tr-replies">
            <For each={delivered()}>
              {(n) => (
                <li>
                  <span class="tr-reply-text">{n.text}</span>
                  <span class="badge sent" role="status">
                    {ui.t('truth.reply.delivered')}
                  </span>
                </li>
              )}
            </For>
            <For each={pending()}>
              {(e) => (
                <li>
                  <span class="tr-reply-text">
                    {e.message.type === 'session.message' ? e.message.text : ''}
                  </span>
                  <ActionStatus entry={e} />
                </li>
              )}
            </For>
          </ol>
          <Show when={pending().length > 0 && props.cards.length > 0}>
            <p class="hint">{ui.t('truth.reply.afterQuestion')}</p>
          </Show>
        </section>
      </Show>
      <label class="field">
        <span>{ui.t('session.reply')}</span>
        <textarea
          rows="3"
          value={text()}
          onInput={(ev) => ui.client.setDraft(key(), ev.currentTarget.value)}
          aria-describedby="reply-counter reply-error"
          aria-invalid={count().over}
        />
      </label>
      <TextCounter id="reply-counter" count={count()} tooLong={ui.t('truth.reply.tooLong')} />
      <button
        type="submit"
        class="btn primary"
        disabled={ui.blocked(props.roomId) !== null || text().trim() === '' || count().over}
        aria-describedby="reply-blocked"
      >
        {ui.t('session.send')}
      </button>
      <BlockedWhy roomId={props.roomId} id="reply-blocked" />
      <p id="reply-error" class="tr-reply-error" role="alert">
        {errorText()}
      </p>
    </form>
  );
}
