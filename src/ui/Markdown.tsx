import { For, Match, Switch, createMemo, type JSX } from 'solid-js';
import { parseMarkdown, type Block, type Inline } from '../client/markdown.ts';
import { CodeBlock } from './CodeBlock.tsx';
import './truth.css';

// U3.2: the agent's Markdown, rendered by Solid from the safe tree of src/client/markdown.ts —
// text nodes and a fixed set of elements, never HTML from the text. A lazy chunk (with marked),
// loaded only by the session screen.

function InlineNodes(props: { nodes: readonly Inline[] }): JSX.Element {
  return (
    <For each={props.nodes}>
      {(n) => (
        <Switch>
          <Match when={n.t === 'text' && n}>{(x) => x().text}</Match>
          <Match when={n.t === 'br'}>
            <br />
          </Match>
          <Match when={n.t === 'code' && n}>{(x) => <code>{x().text}</code>}</Match>
          <Match when={n.t === 'strong' && n}>
            {(x) => (
              <strong>
                <InlineNodes nodes={x().children} />
              </strong>
            )}
          </Match>
          <Match when={n.t === 'em' && n}>
            {(x) => (
              <em>
                <InlineNodes nodes={x().children} />
              </em>
            )}
          </Match>
          <Match when={n.t === 'del' && n}>
            {(x) => (
              <del>
                <InlineNodes nodes={x().children} />
              </del>
            )}
          </Match>
          <Match when={n.t === 'link' && n}>
            {(x) => (
              <a href={x().href} target="_blank" rel="noopener noreferrer">
                <InlineNodes nodes={x().children} />
              </a>
            )}
          </Match>
        </Switch>
      )}
    </For>
  );
}

function Blocks(props: { blocks: readonly Block[] }): JSX.Element {
  return (
    <For each={props.blocks}>
      {(b) => (
        <Switch>
          <Match when={b.t === 'p' && b}>
            {(x) => (
              <p>
                <InlineNodes nodes={x().children} />
              </p>
            )}
          </Match>
          <Match when={b.t === 'h' && b}>
            {(x) => (
              // Agent headings must not compete with the page's own headings: bold text.
              <p class="tr-md-h">
                <strong>
                  <InlineNodes nodes={x().children} />
                </strong>
              </p>
            )}
          </Match>
          <Match when={b.t === 'code' && b}>
            {(x) => <CodeBlock text={x().text} lang={x().lang} />}
          </Match>
          <Match when={b.t === 'quote' && b}>
            {(x) => (
              <blockquote>
                <Blocks blocks={x().children} />
              </blockquote>
            )}
          </Match>
          <Match when={b.t === 'list' && b}>
            {(x) => {
              const items = () => (
                <For each={x().items}>
                  {(item) => (
                    <li>
                      <Blocks blocks={item} />
                    </li>
                  )}
                </For>
              );
              return x().ordered ? <ol start={x().start}>{items()}</ol> : <ul>{items()}</ul>;
            }}
          </Match>
          <Match when={b.t === 'table' && b}>
            {(x) => (
              <div class="tr-table" tabindex="0">
                <table>
                  <thead>
                    <tr>
                      <For each={x().header}>
                        {(cell) => (
                          <th>
                            <InlineNodes nodes={cell} />
                          </th>
                        )}
                      </For>
                    </tr>
                  </thead>
                  <tbody>
                    <For each={x().rows}>
                      {(row) => (
                        <tr>
                          <For each={row}>
                            {(cell) => (
                              <td>
                                <InlineNodes nodes={cell} />
                              </td>
                            )}
                          </For>
                        </tr>
                      )}
                    </For>
                  </tbody>
                </table>
              </div>
            )}
          </Match>
          <Match when={b.t === 'hr'}>
            <hr />
          </Match>
        </Switch>
      )}
    </For>
  );
}

export default function Markdown(props: { text: string }) {
  // The same words in a new entry object (the transcript is fetched again as the session moves
  // on) are not parsed again, so nothing in them is rebuilt — a "Show all" opened stays open.
  const text = createMemo(() => props.text);
  const blocks = createMemo(() => parseMarkdown(text()));
  return (
    <div class="tr-md">
      <Blocks blocks={blocks()} />
    </div>
  );
}
