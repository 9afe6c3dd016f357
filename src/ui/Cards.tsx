import { For, Match, Switch } from 'solid-js';
import type { OpenCard } from '../client/machine-view.ts';
import { ApprovalCard } from './ApprovalCard.tsx';
import { useUi } from './context.tsx';
import { QuestionCard } from './QuestionCard.tsx';

/** Open approvals and questions, announced politely as they arrive (aria-live). */
export function Cards(props: { cards: OpenCard[]; focus?: { kind: string; id: string } }) {
  const ui = useUi();
  const viewOf = (roomId: string) => ui.state().machines.find((m) => m.roomId === roomId);
  return (
    <div class="cards" aria-live="polite" aria-relevant="additions">
      <For each={props.cards}>
        {(card) => (
          <Switch>
            <Match when={card.kind === 'approval' && viewOf(card.roomId) && card}>
              {(c) => {
                const a = c() as Extract<OpenCard, { kind: 'approval' }>;
                return (
                  <ApprovalCard
                    view={viewOf(a.roomId)!}
                    approval={a.approval}
                    focus={
                      props.focus?.kind === 'approval' && props.focus.id === a.approval.approvalId
                    }
                  />
                );
              }}
            </Match>
            <Match when={card.kind === 'question' && viewOf(card.roomId) && card}>
              {(c) => {
                const q = c() as Extract<OpenCard, { kind: 'question' }>;
                return (
                  <QuestionCard
                    view={viewOf(q.roomId)!}
                    question={q.question}
                    focus={
                      props.focus?.kind === 'question' && props.focus.id === q.question.questionId
                    }
                  />
                );
              }}
            </Match>
          </Switch>
        )}
      </For>
    </div>
  );
}
