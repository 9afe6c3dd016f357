// The replica's subscriber connection, speaking RESP2 itself on a plain socket (resp.ts) so a
// message's payload reaches the batch reader as views of the socket's reads (no concatenation).
// It keeps what redis-rooms.ts relied on from ioredis's subscriber: connect once (a failed first
// connect fails start-up and is not retried), then reconnect after every drop with the caller's
// back-off, `onReady` after each (re)connect so the caller resubscribes, commands refused at once
// while not connected (no offline queue: nothing is replayed late), and every command in flight
// rejected when the connection drops. `redis://[user:password@]host[:port]` (AUTH when a
// password is given) and `rediss://` (TLS); a database number is irrelevant to pub/sub.
import net from 'node:net';
import tls from 'node:tls';
import { makeRespReader, type RespSink, type RespValue } from './resp.ts';

export const SUBSCRIBER_ERROR_CODES = {
  'redis-not-ready': 'the subscriber connection is not connected',
  'redis-closed': 'the subscriber connection closed before the reply',
  'redis-refused': 'Redis answered the command with an error',
  'redis-protocol': 'Redis sent bytes that are not RESP2',
  'redis-connect-timeout': 'no connection to Redis within the connect timeout',
  'redis-url': 'the Redis URL is not redis:// or rediss://',
} as const;
export type SubscriberErrorCode = keyof typeof SUBSCRIBER_ERROR_CODES;

export class SubscriberError extends Error {
  constructor(
    readonly code: SubscriberErrorCode,
    detail = '',
  ) {
    super(SUBSCRIBER_ERROR_CODES[code] + detail);
  }
}

export const CONNECT_TIMEOUT_MS = 10_000;

/** Where pub/sub messages go: whole, or streamed (resp.ts RespSink without `reply`). */
export type MessageSink = Omit<RespSink, 'reply'> & {
  /** The connection dropped in the middle of a message. */
  messageAbort(): void;
};

export type SubscriberOptions = {
  url: string;
  /** Delay before reconnect attempt `attempt` (1, 2, …), like ioredis's retryStrategy. */
  retryMs(attempt: number): number;
  messages: MessageSink;
  onReady(): void;
  onClose(): void;
  onError(e: Error): void;
  connectTimeoutMs?: number;
};

export type Subscriber = {
  readonly ready: boolean;
  /** The first connection; rejects (and stops) if it fails. */
  connect(): Promise<void>;
  subscribe(...channels: string[]): Promise<void>;
  unsubscribe(...channels: string[]): Promise<void>;
  /** Closes for good (no reconnect). */
  disconnect(): void;
};

type Pending = { acks: number; resolve(): void; reject(e: Error): void };
type Target = { host: string; port: number; secure: boolean; auth: string[] };

export function parseRedisUrl(url: string): Target {
  const u = new URL(url);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new SubscriberError('redis-url', `: ${u.protocol}`);
  const password = decodeURIComponent(u.password);
  const user = decodeURIComponent(u.username);
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: u.port === '' ? 6379 : Number(u.port),
    secure: u.protocol === 'rediss:',
    auth: password === '' ? [] : user === '' ? [password] : [user, password],
  };
}

/** A command in RESP: an array of bulk strings. */
export function encodeCommand(args: string[]): Buffer {
  let s = `*${args.length}\r\n`;
  for (const a of args) s += `$${Buffer.byteLength(a)}\r\n${a}\r\n`;
  return Buffer.from(s);
}

export function makeSubscriber(o: SubscriberOptions): Subscriber {
  const target = parseRedisUrl(o.url);
  let socket: net.Socket | null = null;
  let ready = false;
  let ended = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | null = null;
  let pending: Pending[] = [];
  let first: { resolve(): void; reject(e: Error): void } | null = null;

  const send = (args: string[], acks: number): Promise<void> =>
    new Promise((resolve, reject) => {
      if (!ready || socket === null) return reject(new SubscriberError('redis-not-ready'));
      pending.push({ acks, resolve, reject });
      socket.write(encodeCommand(args));
    });

  const onReply = (v: RespValue) => {
    const head = pending[0];
    if (head === undefined) return; // an ack nobody waits for (e.g. after a reject): ignore
    if (v !== null && typeof v === 'object' && 'redisError' in v) {
      pending.shift();
      return head.reject(new SubscriberError('redis-refused', `: ${v.redisError}`));
    }
    if (--head.acks === 0) {
      pending.shift();
      head.resolve();
    }
  };

  const becomeReady = () => {
    attempt = 0;
    ready = true;
    if (first !== null) {
      const f = first;
      first = null;
      f.resolve();
    }
    o.onReady();
  };

  const open = () => {
    retry = null;
    const s = target.secure
      ? tls.connect({
          host: target.host,
          port: target.port,
          // SNI carries host names only: Node refuses (and warns about) an IP address there.
          servername: net.isIP(target.host) === 0 ? target.host : undefined,
        })
      : net.connect({ host: target.host, port: target.port });
    socket = s;
    s.setNoDelay(true);
    const r = makeRespReader({ ...o.messages, reply: onReply });
    const timer = setTimeout(
      () => s.destroy(new SubscriberError('redis-connect-timeout')),
      o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    );
    s.once(target.secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      if (target.auth.length === 0) return becomeReady();
      // AUTH before anything else; only then is the connection ready.
      pending.push({
        acks: 1,
        resolve: becomeReady,
        reject: (e) => s.destroy(e),
      });
      s.write(encodeCommand(['AUTH', ...target.auth]));
    });
    s.on('data', (chunk: Buffer) => {
      const e = r.push(chunk);
      if (e !== null) s.destroy(new SubscriberError('redis-protocol', `: ${e.code}: ${e.message}`));
    });
    s.on('error', (e) => o.onError(e));
    s.once('close', () => {
      clearTimeout(timer);
      const wasReady = ready;
      ready = false;
      socket = null;
      if (r.inMessage) o.messages.messageAbort();
      const failed = pending;
      pending = [];
      for (const p of failed) p.reject(new SubscriberError('redis-closed'));
      if (first !== null) {
        const f = first;
        first = null;
        ended = true;
        f.reject(
          new SubscriberError(
            'redis-closed',
            ` (first connection to ${target.host}:${target.port})`,
          ),
        );
        return;
      }
      if (wasReady) o.onClose();
      if (ended) return;
      retry = setTimeout(open, o.retryMs(++attempt));
    });
  };

  return {
    get ready() {
      return ready;
    },
    connect() {
      return new Promise((resolve, reject) => {
        first = { resolve, reject };
        open();
      });
    },
    subscribe: (...channels) =>
      channels.length === 0 ? Promise.resolve() : send(['SUBSCRIBE', ...channels], channels.length),
    unsubscribe: (...channels) =>
      channels.length === 0
        ? Promise.resolve()
        : send(['UNSUBSCRIBE', ...channels], channels.length),
    disconnect() {
      ended = true;
      if (retry !== null) clearTimeout(retry);
      retry = null;
      socket?.destroy();
    },
  };
}
