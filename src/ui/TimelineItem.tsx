import { Match, Show, Suspense, Switch, lazy } from 'solid-js';
import { hasKey } from '../i18n/index.ts';
import {
  TOOL_OUTPUT_FOLDED_LINES,
  finalWords,
  outcomeOf,
  type TimelineItem,
} from '../client/timeline.ts';
import { closedTitle } from '../client/card-words.ts';
import { RunTitle } from './ApprovalCard.tsx';
import { CodeBlock } from './CodeBlock.tsx';
import { useUi } from './context.tsx';
import { Icon } from './icons.tsx';
import { reasonText } from './widgets.tsx';

const Markdown = lazy(() => import('./Markdown.tsx'));

/**
 * SC1: one item of the session's timeline. What the owner typed is shown as typed (never parsed
 * as Markdown); the agent's text as Markdown; a tool call as its name and one line, its output
 * monospace, scrolling sideways, folded after a few lines; a closed card as its title and the
 * outcome chosen; the turn's end in the owner's words ("Stopped by you" is not an error).
 */
export function TimelineEntry(props: { item: TimelineItem; machine: string }) {
  const ui = useUi();
  const time = (ts: number) => ui.time(ts);
  return (
    <Switch>
      <Match when={props.item.kind === 'text' && props.item}>
        {(i) => (
          <li
            data-key={props.item.key}
            class={`tl-item entry ${i().role}`}
            data-seq={i().entry.seq}
          >
            <p class="who">
              {i().role === 'user' ? ui.t('session.role.user') : ui.t('session.role.assistant')} ·{' '}
              {time(i().ts)}
            </p>
            <Show
              when={i().role === 'assistant'}
              fallback={<p class="tr-plain tl-typed">{i().entry.text}</p>}
            >
              <Suspense fallback={<p class="tr-plain">{i().entry.text}</p>}>
                <Markdown text={i().entry.text} />
              </Suspense>
            </Show>
            <Show when={i().entry.truncated}>
              <p class="hint">{ui.t('session.entryTruncated')}</p>
            </Show>
          </li>
        )}
      </Match>
      <Match when={props.item.kind === 'tool' && props.item}>
        {(i) => (
          <li data-key={props.item.key} class="tl-item tl-tool" data-seq={i().entry.seq}>
            <p class="tl-tool-line">
              <span class="chip">{i().call.name}</span>
              <code class="tl-tool-what">{i().call.line}</code>
              <span class="tl-time">{time(i().ts)}</span>
            </p>
            <Show when={i().call.output !== ''}>
              <CodeBlock
                text={i().call.output}
                lang={undefined}
                foldAt={TOOL_OUTPUT_FOLDED_LINES}
              />
            </Show>
          </li>
        )}
      </Match>
      <Match when={props.item.kind === 'outcome' && props.item}>
        {(i) => {
          const words = () => {
            const o = outcomeOf(i().note);
            const title = closedTitle(i().note, (command) => ui.t('card.run', { command }));
            const params = { ...o.params, title, machine: props.machine };
            const key = hasKey(o.key) ? o.key : `closed.${i().note.kind}.gone`;
            return ui.t(key as 'tl.allowed', params);
          };
          // A card the turn's end (a stop, the machine's stop) left unanswered, or one the machine
          // no longer holds, was nobody's failure: a neutral mark, not the red one.
          const neutral = () => ['superseded', 'cancelled'].includes(i().note.resolution);
          const bad = () =>
            !neutral() && i().note.resolution !== 'allow' && i().note.resolution !== 'phone';
          return (
            <li
              data-key={props.item.key}
              class="tl-item tl-outcome"
              classList={{ bad: bad(), neutral: neutral() }}
              data-card={i().note.id}
              role="status"
            >
              <p class="who">
                {i().note.kind === 'approval' ? ui.t('tl.approval') : ui.t('tl.question')} ·{' '}
                {time(i().ts)}
              </p>
              {/* E11.4: the title the open card had ("Run `npm test`", the command monospace). */}
              <p class="tl-outcome-title">
                <Show when={i().note.command} fallback={i().note.title}>
                  {(command) => <RunTitle command={command()} />}
                </Show>
              </p>
              <p class="tl-outcome-words">
                <Icon name={bad() ? 'failed' : neutral() ? 'stopped' : 'ok'} />
                {words()}
              </p>
              <Show when={i().note.undelivered}>
                <p class="tr-undelivered">
                  {i().note.undelivered === 'answer'
                    ? ui.t('truth.undeliveredAnswer')
                    : ui.t('truth.undelivered', {
                        decision: ui.t(
                          i().note.undelivered === 'deny' ? 'decision.deny' : 'decision.allowWord',
                        ),
                      })}
                </p>
              </Show>
            </li>
          );
        }}
      </Match>
      <Match when={props.item.kind === 'final' && props.item}>
        {(i) => {
          const words = () => finalWords(i().final);
          // The agent's own summary, unless it is a placeholder a reason code words better; a
          // machine-stopped turn keeps what the agent had done (E11.7).
          const text = () =>
            words() === 'tl.final.machineStopped'
              ? i().final.summary
              : reasonText(ui.t, i().final.reason, i().final.summary);
          return (
            <li
              data-key={props.item.key}
              class="tl-item tl-final"
              classList={{ bad: words() === 'tl.final.failed' }}
            >
              <h3 class="tl-final-title">
                <Icon
                  name={
                    words() === 'tl.final.failed'
                      ? 'failed'
                      : words() === 'tl.final.ok'
                        ? 'ok'
                        : 'stopped'
                  }
                />
                {ui.t(words())}
              </h3>
              <Show when={words() !== 'tl.final.stopped'}>
                <Suspense fallback={<p class="tr-plain">{text()}</p>}>
                  <Markdown text={text()} />
                </Suspense>
              </Show>
            </li>
          );
        }}
      </Match>
    </Switch>
  );
}
