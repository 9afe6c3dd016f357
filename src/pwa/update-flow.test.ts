import { describe, expect, it } from 'vitest';
import { makeUpdateFlow, type WorkboxLike } from './update-flow.ts';

// workbox-window's Workbox reduced to its event registry; the real one is driven in e2e.
function fakeWorkbox() {
  const listeners: Record<string, Array<() => void>> = { waiting: [], controlling: [] };
  let skipWaitingMessages = 0;
  const workbox: WorkboxLike = {
    addEventListener: (type, listener) => void listeners[type]!.push(listener),
    messageSkipWaiting: () => void skipWaitingMessages++,
  };
  return {
    workbox,
    fire: (type: 'waiting' | 'controlling') => listeners[type]!.forEach((l) => l()),
    skipWaitingMessages: () => skipWaitingMessages,
  };
}

describe('Update prompt (N1)', () => {
  it('a worker taking control without the user tapping Reload never reloads the page', () => {
    const wb = fakeWorkbox();
    let reloads = 0;
    const flow = makeUpdateFlow(wb.workbox, () => reloads++);
    wb.fire('controlling'); // first visit: the new worker claims the page
    wb.fire('waiting');
    wb.fire('controlling');
    expect(flow.waiting()).toBe(true);
    expect(reloads).toBe(0);
    expect(wb.skipWaitingMessages()).toBe(0);
  });

  it('the Reload tap asks the waiting worker to skip waiting and reloads once it controls', () => {
    const wb = fakeWorkbox();
    let reloads = 0;
    const flow = makeUpdateFlow(wb.workbox, () => reloads++);
    const seen: boolean[] = [];
    flow.onChange(() => seen.push(flow.waiting()));
    wb.fire('waiting');
    expect(seen).toEqual([true]);
    flow.applyUpdate();
    flow.applyUpdate(); // a double tap sends one message
    expect(wb.skipWaitingMessages()).toBe(1);
    expect(reloads).toBe(0);
    wb.fire('controlling');
    expect(reloads).toBe(1);
  });

  it('Reload does nothing while no new version is waiting', () => {
    const wb = fakeWorkbox();
    let reloads = 0;
    const flow = makeUpdateFlow(wb.workbox, () => reloads++);
    flow.applyUpdate();
    wb.fire('controlling');
    expect(wb.skipWaitingMessages()).toBe(0);
    expect(reloads).toBe(0);
  });
});
