import type { SocketFactory, Timeouts } from './logic/socket.ts';

// The worker's real socket and timers for the logic in sw/logic/ (tests pass Node's instead).
// The cast only widens the handlers' event parameter types; the browser WebSocket has them all.
export const browserSocket: SocketFactory = (url) =>
  new WebSocket(url) as unknown as ReturnType<SocketFactory>;

export const browserTimers: Timeouts = {
  setTimeout: (fn, ms) => ({ id: setTimeout(fn, ms) }),
  clearTimeout: (h) => clearTimeout(h.id as ReturnType<typeof setTimeout>),
};
