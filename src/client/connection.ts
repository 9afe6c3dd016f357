import {
  PHONE_BACKOFF,
  PHONE_HELLO_PROBE_MS,
  PHONE_HELLO_TIMEOUT_MS,
  backoffDelayMs,
  encodeFrame,
  parseServerFrame,
  type ServerFrame,
} from '../../protocol/index.ts';
import {
  SOCKET_OPEN,
  type SocketFactory,
  type SocketLike,
  type TimerHandle,
  type Timeouts,
} from './socket.ts';

export const LINK_STATES = {
  connecting: 'connecting',
  online: 'online',
  offline: 'offline',
} as const;
export type LinkState = (typeof LINK_STATES)[keyof typeof LINK_STATES];
export type LinkStatus = { state: LinkState; since: number };

/** Frames from the relay, with `hello-ok` / `bad-hello` tied back to the room they answer. */
export type ConnectionEvent =
  | { kind: 'joined'; room: string; peers: { machine: number; phone: number }; fresh: boolean }
  | { kind: 'refused'; room: string; code: string; message?: string }
  | { kind: 'frame'; frame: ServerFrame }
  | { kind: 'status'; status: LinkStatus }
  | { kind: 'socket-closed' };

export type ConnectionOptions = {
  url: string;
  socket: SocketFactory;
  timers: Timeouts;
  now: () => number;
  random: () => number;
  /** The rooms to join on this relay, asked afresh on every (re)connect. */
  rooms: () => readonly string[];
  onEvent: (event: ConnectionEvent) => void;
  log?: (line: string) => void;
};

export type Connection = {
  start(): void;
  /** Joins one more room on the open socket (a new pairing). */
  join(room: string): void;
  /** Sends a frame now; false when the socket is not open (nothing is queued here). */
  send(frame: Parameters<typeof encodeFrame>[0]): boolean;
  isJoined(room: string): boolean;
  status(): LinkStatus;
  /** Reconnects at once when not connected (`online` event, app became visible). */
  kick(): void;
  /**
   * "Reconnect now": a closed or still-connecting link starts afresh at once; an open one is
   * probed now (D5), so a dead link is dropped within PHONE_HELLO_TIMEOUT_MS.
   */
  reconnectNow(): void;
  /** D5: close while the app is hidden so the relay pushes instead; no reconnect until kick. */
  suspend(): void;
  /** Reconnects from scratch (e.g. a room was forgotten and must be left). */
  restart(): void;
  close(): void;
};

// One WebSocket per relay URL carrying a hello for every paired room on it (role phone).
// `hello-ok` carries no room, so hellos are matched to replies in the order they were sent.
// D5: browsers cannot see WebSocket pings, so every PHONE_HELLO_PROBE_MS a hello for one joined
// room is re-sent (the relay replays hello-ok without side effects); no reply within
// PHONE_HELLO_TIMEOUT_MS means the link is dead and we reconnect.
export function makeConnection(options: ConnectionOptions): Connection {
  const { timers, now, log = () => {} } = options;
  let socket: SocketLike | null = null;
  let generation = 0;
  let attempt = 0;
  let retryTimer: TimerHandle | null = null;
  let probeTimer: TimerHandle | null = null;
  let deadlineTimer: TimerHandle | null = null;
  let suspended = false;
  let closed = false;
  let started = false;
  let joined = new Set<string>();
  let pending: string[] = [];
  let status: LinkStatus = { state: LINK_STATES.connecting, since: now() };

  const setStatus = (state: LinkState) => {
    if (status.state === state) return;
    status = { state, since: now() };
    options.onEvent({ kind: 'status', status });
  };
  const clear = (id: TimerHandle | null) => {
    if (id !== null) timers.clearTimeout(id);
  };
  const clearTimers = () => {
    clear(retryTimer);
    clear(probeTimer);
    clear(deadlineTimer);
    retryTimer = probeTimer = deadlineTimer = null;
  };

  const sendHello = (room: string) => {
    if (!socket || socket.readyState !== SOCKET_OPEN) return;
    pending.push(room);
    socket.send(encodeFrame({ kind: 'hello', room, role: 'phone' }));
    if (deadlineTimer === null) {
      deadlineTimer = timers.setTimeout(() => {
        deadlineTimer = null;
        log(`relay ${options.url}: no hello-ok within ${PHONE_HELLO_TIMEOUT_MS} ms, reconnecting`);
        drop();
      }, PHONE_HELLO_TIMEOUT_MS);
    }
  };

  const scheduleProbe = () => {
    clear(probeTimer);
    probeTimer = timers.setTimeout(() => {
      probeTimer = null;
      const [room] = joined;
      if (room !== undefined) sendHello(room);
      scheduleProbe();
    }, PHONE_HELLO_PROBE_MS);
  };

  const answered = () => {
    const room = pending.shift();
    if (pending.length === 0) {
      clear(deadlineTimer);
      deadlineTimer = null;
    }
    return room;
  };

  const onMessage = (data: unknown) => {
    if (typeof data !== 'string') return log(`relay ${options.url}: ignored a binary frame`);
    const parsed = parseServerFrame(data);
    if (!parsed.ok) return log(`relay ${options.url}: ignored a frame (${parsed.code})`);
    const frame = parsed.value;
    if (frame.kind === 'hello-ok') {
      const room = answered();
      if (room === undefined) return;
      const fresh = !joined.has(room);
      joined.add(room);
      attempt = 0;
      setStatus(LINK_STATES.online);
      options.onEvent({ kind: 'joined', room, peers: frame.peers, fresh });
      return;
    }
    if (frame.kind === 'error' && frame.code === 'bad-hello') {
      const room = answered();
      if (room !== undefined) {
        joined.delete(room);
        options.onEvent({ kind: 'refused', room, code: frame.code, message: frame.message });
        return;
      }
    }
    options.onEvent({ kind: 'frame', frame });
  };

  const connect = () => {
    if (closed || suspended) return;
    clearTimers();
    const mine = ++generation;
    joined = new Set();
    pending = [];
    let ws: SocketLike;
    try {
      ws = options.socket(options.url);
    } catch (e) {
      log(`relay ${options.url}: cannot open a socket (${(e as Error).message})`);
      return scheduleRetry();
    }
    socket = ws;
    ws.onopen = () => {
      if (mine !== generation) return;
      for (const room of options.rooms()) sendHello(room);
      scheduleProbe();
    };
    ws.onmessage = (ev) => {
      if (mine === generation) onMessage(ev.data);
    };
    ws.onerror = () => {};
    ws.onclose = () => {
      if (mine !== generation) return;
      socket = null;
      joined = new Set();
      options.onEvent({ kind: 'socket-closed' });
      scheduleRetry();
    };
  };

  const scheduleRetry = () => {
    clearTimers();
    socket = null;
    if (closed || suspended) return;
    setStatus(LINK_STATES.offline);
    attempt += 1;
    const delay = backoffDelayMs(attempt, options.random, PHONE_BACKOFF);
    retryTimer = timers.setTimeout(() => {
      retryTimer = null;
      connect();
    }, delay);
  };

  /** Abandons the current socket (dead link) and reconnects with backoff. */
  const drop = () => {
    const ws = socket;
    generation += 1;
    socket = null;
    joined = new Set();
    try {
      ws?.close(4000, 'no hello-ok');
    } catch {
      // a socket that is already closing has nothing left to say
    }
    options.onEvent({ kind: 'socket-closed' });
    scheduleRetry();
  };

  return {
    start() {
      if (started) return;
      started = true;
      connect();
    },
    join(room) {
      if (!joined.has(room) && !pending.includes(room)) sendHello(room);
    },
    send(frame) {
      if (!socket || socket.readyState !== SOCKET_OPEN) return false;
      socket.send(encodeFrame(frame));
      return true;
    },
    isJoined: (room) => joined.has(room),
    status: () => status,
    kick() {
      suspended = false;
      if (socket) return;
      attempt = 0;
      setStatus(LINK_STATES.connecting);
      connect();
    },
    reconnectNow() {
      suspended = false;
      const [room] = joined;
      if (socket && socket.readyState === SOCKET_OPEN && room !== undefined) return sendHello(room);
      const ws = socket;
      generation += 1;
      socket = null;
      try {
        ws?.close(1000, 'reconnect');
      } catch {
        // a socket that is already closing has nothing left to say
      }
      if (ws) options.onEvent({ kind: 'socket-closed' });
      attempt = 0;
      setStatus(LINK_STATES.connecting);
      connect();
    },
    suspend() {
      suspended = true;
      const ws = socket;
      generation += 1;
      clearTimers();
      socket = null;
      joined = new Set();
      pending = [];
      ws?.close(1000, 'app hidden');
      if (ws) options.onEvent({ kind: 'socket-closed' });
      setStatus(LINK_STATES.offline);
    },
    restart() {
      const ws = socket;
      generation += 1;
      socket = null;
      ws?.close(1000, 'rooms changed');
      // Whatever was in flight on the old socket is unconfirmed now (D10).
      if (ws) options.onEvent({ kind: 'socket-closed' });
      attempt = 0;
      setStatus(LINK_STATES.connecting);
      connect();
    },
    close() {
      closed = true;
      generation += 1;
      clearTimers();
      socket?.close(1000, 'closed');
      socket = null;
    },
  };
}
