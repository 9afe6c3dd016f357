import { For } from 'solid-js';
import { parseUnifiedDiff } from '../client/diff.ts';

export default function DiffView(props: { text: string; label: string }) {
  const lines = () => parseUnifiedDiff(props.text);
  return (
    <div class="diff" role="region" aria-label={props.label} tabindex="0">
      <table>
        <tbody>
          <For each={lines()}>
            {(line) => (
              <tr class={`diff-${line.kind}`}>
                <td class="ln">{line.oldNo ?? ''}</td>
                <td class="ln">{line.newNo ?? ''}</td>
                <td class="code">{line.text}</td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
    </div>
  );
}
