// @vitest-environment jsdom
import { cleanup, render } from '@solidjs/testing-library';
import { createSignal } from 'solid-js';
import { afterEach, describe, expect, it } from 'vitest';
import { ByKey } from './ByKey.tsx';

afterEach(cleanup);

type Row = { id: string; label: string };

// The machine re-sends whole lists and the app rebuilds its view per message: every row object
// is new each time. What the owner is typing in a row must outlive that.
describe('A keyed row outlives a re-sent list', () => {
  const setUp = () => {
    const [rows, setRows] = createSignal<Row[]>([
      { id: 'a', label: 'Pixel' },
      { id: 'b', label: 'iPhone' },
    ]);
    const { container } = render(() => (
      <ul>
        <ByKey each={rows()} key={(r) => r.id}>
          {(row) => (
            <li data-id={row().id}>
              <span>{row().label}</span>
              <input />
            </li>
          )}
        </ByKey>
      </ul>
    ));
    const li = (id: string) => container.querySelector<HTMLLIElement>(`li[data-id="${id}"]`);
    return { setRows, li, container };
  };

  it('the same keys in new objects keep each row, its typed text and its place; the item updates in place', () => {
    const { setRows, li } = setUp();
    const before = li('a');
    before!.querySelector('input')!.value = 'Pix';
    setRows([
      { id: 'a', label: 'Pixel 7' },
      { id: 'b', label: 'iPhone' },
    ]);
    expect(li('a')).toBe(before);
    expect(li('a')!.querySelector('input')!.value).toBe('Pix');
    expect(li('a')!.querySelector('span')!.textContent).toBe('Pixel 7');
  });

  it('a row that leaves is removed, a new key gets a new row, and the order follows the list', () => {
    const { setRows, li, container } = setUp();
    const b = li('b');
    setRows([
      { id: 'c', label: 'Galaxy' },
      { id: 'b', label: 'iPhone' },
    ]);
    expect(li('a')).toBeNull();
    expect(li('b')).toBe(b);
    expect([...container.querySelectorAll('li')].map((x) => x.dataset['id'])).toEqual(['c', 'b']);
  });
});
