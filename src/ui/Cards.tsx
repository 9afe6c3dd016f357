import { Show, createMemo } from 'solid-js';
import type { OpenCard } from '../client/machine-view.ts';
import { ApprovalCard } from './ApprovalCard.tsx';
import { ByKey } from './ByKey.tsx';
import { ClosedNotes, type NoteRef } from './ClosedNotes.tsx';
import { useUi } from './context.tsx';
import { QuestionCard } from './QuestionCard.tsx';

const keyOf = (c: OpenCard) =>
  `${c.roomId}|${c.kind}|${c.kind === 'approval' ? c.approval.approvalId : c.question.questionId}`;

/**
 * Open approvals and questions, announced politely as they arrive (aria-live). Cards are keyed
 * by id, not by object, so a live update elsewhere never remounts a card the owner is filling in.
 * A card that closes while on screen leaves its note here (U1: "demo restarted — no longer
 * pending"), unless the screen passes the notes it shows itself.
 */
export function Cards(props: {
  cards: OpenCard[];
  focus?: { kind: string; id: string } | undefined;
  notes?: NoteRef[];
}) {
  const ui = useUi();
  const keys = createMemo(() => props.cards.map(keyOf));
  const viewOf = (roomId: string) => ui.state().machines.find((m) => m.roomId === roomId);
  // Every card shown during this visit, so its note can take its place when it closes.
  const shown = new Set<string>();
  const notes = createMemo((): NoteRef[] => {
    for (const k of keys()) shown.add(k);
    if (props.notes) return props.notes;
    return ui
      .state()
      .machines.flatMap((v) => v.closed.map((note) => ({ roomId: v.roomId, note })))
      .filter((r) => shown.has(`${r.roomId}|${r.note.kind}|${r.note.id}`));
  });
  const nameOf = (roomId: string) => viewOf(roomId)?.name ?? '';
  return (
    <>
      <div class="cards" aria-live="polite" aria-relevant="additions">
        <ByKey each={props.cards} key={keyOf}>
          {(card) => {
            const approval = () => {
              const c = card();
              return c.kind === 'approval' ? c.approval : undefined;
            };
            const question = () => {
              const c = card();
              return c.kind === 'question' ? c.question : undefined;
            };
            return (
              <Show when={viewOf(card().roomId)}>
                {(v) => (
                  <>
                    <Show when={approval()}>
                      {(a) => (
                        <ApprovalCard
                          view={v()}
                          approval={a()}
                          focus={
                            props.focus?.kind === 'approval' && props.focus.id === a().approvalId
                          }
                        />
                      )}
                    </Show>
                    <Show when={question()}>
                      {(q) => (
                        <QuestionCard
                          view={v()}
                          question={q()}
                          focus={
                            props.focus?.kind === 'question' && props.focus.id === q().questionId
                          }
                        />
                      )}
                    </Show>
                  </>
                )}
              </Show>
            );
          }}
        </ByKey>
      </div>
      <ClosedNotes notes={notes()} machine={nameOf} />
    </>
  );
}
