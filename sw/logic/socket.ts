// The worker's short-lived relay sockets use the same socket slice (protocol/socket-like.ts) and
// timer slice (Timeouts of protocol/timers.ts) as the app's client, so the same code runs on the
// browser WebSocket and on `ws` in tests.
export type { SocketFactory, SocketLike } from '../../protocol/socket-like.ts';
export type { TimerHandle, Timeouts } from '../../protocol/timers.ts';
export { SOCKET_OPEN } from '../../protocol/socket-like.ts';
