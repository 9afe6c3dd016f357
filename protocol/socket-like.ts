// The slice of a WebSocket that the phone's relay links use — the app's client
// (browser WebSocket) and the service worker's short-lived sockets (browser WebSocket, or `ws` in
// Node tests) — so tests inject fakes; their timers are the Timeouts slice of protocol/timers.ts.
export type SocketLike = {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
};
export type SocketFactory = (url: string) => SocketLike;

/** WebSocket.OPEN, spelled out: neither runtime's global is assumed here. */
export const SOCKET_OPEN = 1;
