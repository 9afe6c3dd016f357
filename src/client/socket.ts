// The client's socket slice and its Timeouts (the one Timers type's slice) live in protocol/ (the
// service worker uses the same ones); the browser's real timers are bound here.
import type { Timeouts } from '../../protocol/timers.ts';
export type { SocketFactory, SocketLike } from '../../protocol/socket-like.ts';
export type { TimerHandle, Timeouts } from '../../protocol/timers.ts';
export { SOCKET_OPEN } from '../../protocol/socket-like.ts';

export const browserTimers: Timeouts = {
  setTimeout: (fn, ms) => ({ id: globalThis.setTimeout(fn, ms) }),
  clearTimeout: (h) => globalThis.clearTimeout(h.id as ReturnType<typeof setTimeout>),
};
