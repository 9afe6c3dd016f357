import { For, Show, createMemo, type Accessor, type JSX } from 'solid-js';

/**
 * A list whose rows are kept by a stable key, not by object: the machine re-sends whole lists
 * (phones, rules) and the app rebuilds its view on every message, so a row keyed by object would
 * be thrown away and rebuilt under the owner's finger — losing what they were typing in it, the
 * confirmation they had opened, the button they were about to tap. A row here lives as long as
 * its key is in the list; its item updates in place.
 */
export function ByKey<T extends object>(props: {
  each: readonly T[];
  key: (item: T) => string;
  children: (item: Accessor<T>) => JSX.Element;
}) {
  const byKey = createMemo(() => new Map(props.each.map((item) => [props.key(item), item])));
  const keys = createMemo(() => [...byKey().keys()]);
  return (
    <For each={keys()}>
      {(key) => <Show when={byKey().get(key)}>{(item) => props.children(item)}</Show>}
    </For>
  );
}
