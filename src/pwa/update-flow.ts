// The "New version — reload" rule, kept free of the DOM so it can be tested as a plain object.
// A new worker waits (sw/update.ts) until the user taps Reload; only inside that tap do we listen
// for the new worker taking control and reload then. Listening earlier would reload the page the
// first time a worker claims it (a first visit), possibly while the user is typing.

/** The slice of workbox-window's `Workbox` this flow uses. */
export type WorkboxLike = {
  addEventListener(type: 'waiting' | 'controlling', listener: () => void): void;
  messageSkipWaiting(): void;
};

export type UpdateFlow = {
  /** True once a new version is installed and waiting for the user's tap. */
  waiting(): boolean;
  onChange(listener: () => void): () => void;
  /** Call only from the user's Reload tap. */
  applyUpdate(): void;
};

export function makeUpdateFlow(workbox: WorkboxLike, reload: () => void): UpdateFlow {
  let waiting = false;
  let applying = false;
  const listeners = new Set<() => void>();
  const emit = () => listeners.forEach((l) => l());

  workbox.addEventListener('waiting', () => {
    waiting = true;
    emit();
  });

  return {
    waiting: () => waiting,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    applyUpdate() {
      if (!waiting || applying) return;
      applying = true;
      workbox.addEventListener('controlling', reload);
      workbox.messageSkipWaiting();
    },
  };
}
