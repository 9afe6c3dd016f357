// Producers (child pipes, file reads) pause while too many chunk bytes are unacked, so a fast
// command or a slow server cannot grow the executor's memory without bound (X4, R5).
export type Flow = {
  blocked(): boolean;
  /** Resolves when not blocked (immediately if already open). */
  wait(): Promise<void>;
};

export const openFlow: Flow = { blocked: () => false, wait: () => Promise.resolve() };

export type FlowControl = Flow & {
  add(bytes: number): void;
  release(bytes: number): void;
  readonly held: number;
};

export const makeFlowControl = (maxBytes: number): FlowControl => {
  let held = 0;
  let waiters: Array<() => void> = [];
  return {
    blocked: () => held >= maxBytes,
    wait: () => (held < maxBytes ? Promise.resolve() : new Promise<void>((r) => waiters.push(r))),
    add(bytes) {
      held += bytes;
    },
    release(bytes) {
      held = Math.max(0, held - bytes);
      if (held < maxBytes && waiters.length > 0) {
        const w = waiters;
        waiters = [];
        for (const r of w) r();
      }
    },
    get held() {
      return held;
    },
  };
};
