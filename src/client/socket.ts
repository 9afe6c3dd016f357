// The client's socket and timer slice lives in protocol/ (the service worker uses the same one);
// the browser's real timers are bound here.
import type { Timers } from '../../protocol/socket-like.ts';
export type { SocketFactory, SocketLike, Timers } from '../../protocol/socket-like.ts';
export { SOCKET_OPEN } from '../../protocol/socket-like.ts';

export const browserTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (id) => globalThis.clearTimeout(id as ReturnType<typeof setTimeout>),
};
