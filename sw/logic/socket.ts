// The worker's short-lived relay sockets use the same socket and timer slice as the app's client
// (protocol/socket-like.ts), so the same code runs on the browser WebSocket and on `ws` in tests.
export type { SocketFactory, SocketLike, Timers } from '../../protocol/socket-like.ts';
export { SOCKET_OPEN } from '../../protocol/socket-like.ts';
