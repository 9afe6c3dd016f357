import { For, Show, createSignal } from 'solid-js';
import type { QuestionAnswer, QuestionItem, QuestionRequest } from '../../protocol/index.ts';
import type { MachineView } from '../client/machine-view.ts';
import { CardClock } from './CardClock.tsx';
import { useUi } from './context.tsx';
import { SessionLink } from './SessionLink.tsx';
import { ActionStatus, ErrorAlert, Presence } from './widgets.tsx';

export function QuestionCard(props: {
  view: MachineView;
  question: QuestionRequest;
  focus?: boolean;
}) {
  const ui = useUi();
  const qid = () => props.question.questionId;
  // Plain records in signals (no store proxies: they cannot be cloned into IndexedDB, and
  // solid-js/store would add to the first chunk).
  const [pickedMap, setPickedMap] = createSignal<Record<string, string[]>>({});
  const [freeMap, setFreeMap] = createSignal<Record<string, string>>({});
  const picked = (itemId: string): string[] | undefined => pickedMap()[itemId];
  const free = (itemId: string): string | undefined => freeMap()[itemId];
  const setPicked = (itemId: string, value: string[]) =>
    setPickedMap((m) => ({ ...m, [itemId]: value }));
  const setFree = (itemId: string, value: string) => setFreeMap((m) => ({ ...m, [itemId]: value }));
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<string | null>(null);
  const entry = () =>
    ui
      .state()
      .outbox.find(
        (e) => e.kind === 'question' && e.roomId === props.view.roomId && e.targetId === qid(),
      );
  const blocked = () => ui.blocked(props.view.roomId);
  const title = () => props.question.items[0]?.prompt ?? '';
  // U4.question: a single question's text is its heading, shown once (inside the legend); a
  // free-text question is never told to "choose".
  const single = () => props.question.items.length === 1;
  const hint = (item: QuestionItem) => {
    if (item.options.length === 0) return null;
    if (item.multiSelect)
      return ui.t(item.allowFreeText ? 'truth.chooseManyOrWrite' : 'card.chooseMany');
    return ui.t(item.allowFreeText ? 'truth.chooseOneOrWrite' : 'card.chooseOne');
  };
  // Every item needs an option or (where allowed) some text: an empty answer is never sent.
  const complete = () =>
    props.question.items.every(
      (item) =>
        (picked(item.id)?.length ?? 0) > 0 ||
        (item.allowFreeText && (free(item.id) ?? '').trim() !== ''),
    );

  const toggle = (itemId: string, optionId: string, multi: boolean) => {
    const now = picked(itemId) ?? [];
    if (!multi) setPicked(itemId, [optionId]);
    else
      setPicked(
        itemId,
        now.includes(optionId) ? now.filter((o) => o !== optionId) : [...now, optionId],
      );
  };

  const submit = async (ev: Event) => {
    ev.preventDefault();
    if (busy() || entry() || !complete()) return;
    setBusy(true);
    const answers: QuestionAnswer[] = props.question.items.map((item) => {
      const text = (free(item.id) ?? '').trim();
      return {
        itemId: item.id,
        optionIds: [...(picked(item.id) ?? [])],
        ...(text ? { freeText: text } : {}),
      };
    });
    const result = await ui.client.respondQuestion(props.view.roomId, qid(), answers);
    if (!result.ok) {
      setError(ui.t(`block.${result.code}`));
      setBusy(false);
    }
  };

  return (
    <article
      class="card question"
      id={`question-${qid()}`}
      aria-labelledby={`question-title-${qid()}`}
      tabindex={-1}
      ref={(el) => props.focus && queueMicrotask(() => el.focus())}
    >
      <p class="card-meta">
        {/* The separator stays with the word before it, so a wrapped line never starts with it. */}
        <span>
          <span class="kind">{ui.t('card.question')}</span> ·
        </span>
        <span>{props.view.name} ·</span>
        <Presence view={props.view} />
      </p>
      <Show when={!single()}>
        <h3 id={`question-title-${qid()}`}>
          {ui.t('truth.questionsMany', { count: props.question.items.length })}
        </h3>
      </Show>
      <CardClock
        roomId={props.view.roomId}
        createdAt={props.question.createdAt}
        expiresAt={props.question.expiresAt}
      />
      <SessionLink view={props.view} sessionId={props.question.sessionId} />
      <form onSubmit={(ev) => void submit(ev)}>
        <For each={props.question.items}>
          {(item, i) => (
            <fieldset disabled={busy() || !!entry()}>
              <legend>
                <Show when={single()} fallback={item.prompt}>
                  <h3 id={`question-title-${qid()}`}>{item.prompt}</h3>
                </Show>
                <Show when={hint(item)}>
                  {(h) => <span class="hint">{single() ? h() : ` — ${h()}`}</span>}
                </Show>
              </legend>
              <For each={item.options}>
                {(option) => (
                  <label class="choice">
                    <input
                      type={item.multiSelect ? 'checkbox' : 'radio'}
                      name={`q-${qid()}-${i()}`}
                      value={option.id}
                      checked={(picked(item.id) ?? []).includes(option.id)}
                      onChange={() => toggle(item.id, option.id, item.multiSelect)}
                    />
                    <span class="tr-option-text">
                      <span>{option.label}</span>
                      <Show when={option.description}>
                        <span class="tr-option-desc">{option.description}</span>
                      </Show>
                    </span>
                  </label>
                )}
              </For>
              <Show when={item.allowFreeText}>
                <label class="field">
                  <span>{ui.t('card.freeText')}</span>
                  <textarea
                    rows="2"
                    value={free(item.id) ?? ''}
                    onInput={(ev) => setFree(item.id, ev.currentTarget.value)}
                  />
                </label>
              </Show>
            </fieldset>
          )}
        </For>
        <Show
          when={entry()}
          fallback={
            <>
              <button
                type="submit"
                class="btn allow"
                disabled={busy() || blocked() !== null || !complete()}
                aria-label={ui.t('card.submitNamed', { title: title() })}
              >
                {ui.t('card.submit')}
              </button>
              <Show when={blocked()}>{(code) => <p class="why">{ui.t(`block.${code()}`)}</p>}</Show>
              <ErrorAlert message={error()} />
            </>
          }
        >
          {(e) => <ActionStatus entry={e()} />}
        </Show>
      </form>
    </article>
  );
}
