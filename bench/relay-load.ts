// The one load generator every relay variant gets: raw TCP sockets that speak just enough
// WebSocket (RFC 6455) to send pre-built frames in batches and count received frames without
// decoding them, so the generator costs as little CPU as possible and the same for everyone.
import crypto from 'node:crypto';
import net from 'node:net';

export type Variant = 'ws' | 'tcp';

/** A client frame with a zero mask key: legal, and the payload bytes stay as they are. */
export function clientFrame(text: string | Buffer): Buffer {
  const payload = typeof text === 'string' ? Buffer.from(text) : text;
  const n = payload.length;
  const head =
    n < 126
      ? Buffer.from([0x81, 0x80 | n])
      : n < 65_536
        ? Buffer.from([0x81, 0x80 | 126, n >> 8, n & 255])
        : null;
  if (!head) throw new Error('frames over 64 KiB are not used here');
  return Buffer.concat([head, Buffer.alloc(4), payload]);
}

/** A pong with no payload, masked with a zero key (what a client answers a relay's empty ping). */
export const PONG = Buffer.from([0x8a, 0x80, 0, 0, 0, 0]);
const OP_PING = 0x9;

/**
 * Streams frames out of a socket; hands each data frame's first `prefixBytes` payload bytes
 * over. A ping goes to `onPing` instead (a real client answers it, and the relay closes sockets
 * that do not, after two ping intervals — longer than one measurement used to last).
 */
export class FrameReader {
  private head = Buffer.alloc(14);
  private headLen = 0;
  private remaining = 0;
  private prefix: Buffer;
  private prefixLen = 0;
  private want = 0;
  private masked = false;
  private opcode = 0;
  constructor(
    prefixBytes: number,
    private readonly onData: (prefix: Buffer, prefixLen: number) => void,
    private readonly onPing: () => void = () => undefined,
  ) {
    this.prefix = Buffer.alloc(prefixBytes);
  }
  private onFrame(prefix: Buffer, prefixLen: number): void {
    if (this.opcode === OP_PING) this.onPing();
    else this.onData(prefix, prefixLen);
  }
  push(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.remaining === 0 && this.want === 0) {
        // Reading a header: 2 bytes, then 0/2/8 length bytes, then 0/4 mask bytes.
        this.head[this.headLen++] = chunk[i++] as number;
        if (this.headLen < 2) continue;
        const len7 = (this.head[1] as number) & 127;
        this.masked = ((this.head[1] as number) & 128) !== 0;
        const extra = len7 === 126 ? 2 : len7 === 127 ? 8 : 0;
        const need = 2 + extra + (this.masked ? 4 : 0);
        if (this.headLen < need) continue;
        const len =
          len7 === 126
            ? this.head.readUInt16BE(2)
            : len7 === 127
              ? Number(this.head.readBigUInt64BE(2))
              : len7;
        this.headLen = 0;
        this.prefixLen = 0;
        this.opcode = (this.head[0] as number) & 0x0f;
        this.want = Math.min(len, this.prefix.length);
        this.remaining = len - this.want;
        if (len === 0) this.onFrame(this.prefix, 0);
        continue;
      }
      if (this.want > 0) {
        const take = Math.min(this.want, chunk.length - i);
        chunk.copy(this.prefix, this.prefixLen, i, i + take);
        this.prefixLen += take;
        this.want -= take;
        i += take;
        if (this.want === 0 && this.remaining === 0) this.onFrame(this.prefix, this.prefixLen);
        continue;
      }
      const skip = Math.min(this.remaining, chunk.length - i);
      this.remaining -= skip;
      i += skip;
      if (this.remaining === 0) this.onFrame(this.prefix, this.prefixLen);
    }
  }
}

// One read buffer for every socket of the generator (net's `onread`): each read is consumed
// before the next (the reader copies the few prefix bytes it keeps), so no 64 KiB buffer is
// allocated per read and collected later — the generator's own GC, paid the same for every relay.
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export type Opened = {
  socket: net.Socket;
  /** Bytes that came after the upgrade response, in a buffer of their own. */
  rest: Buffer;
  /** Where the socket's bytes go from now on (views of the shared read buffer: copy to keep). */
  onData(f: (d: Buffer) => void): void;
};

/**
 * Opens a socket; for `ws` performs the upgrade. Resolves with the socket and any bytes after it.
 * `localAddress` (127.0.0.x) spreads many sockets over several loopback source addresses
 * (bench:capacity), each with its own ephemeral ports.
 */
export function openSocket(port: number, variant: Variant, localAddress?: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    let sink: (d: Buffer) => void = () => undefined;
    const socket = net.connect({
      port,
      host: '127.0.0.1',
      ...(localAddress === undefined ? {} : { localAddress }),
      onread: {
        buffer: READ_BUFFER,
        callback: (n: number) => {
          sink(READ_BUFFER.subarray(0, n));
          return true;
        },
      },
    });
    const onData = (f: (d: Buffer) => void) => {
      sink = f;
    };
    socket.setNoDelay(true);
    socket.once('error', reject);
    socket.once('connect', () => {
      if (variant === 'tcp') {
        socket.removeListener('error', reject);
        return resolve({ socket, rest: Buffer.alloc(0), onData });
      }
      const key = crypto.randomBytes(16).toString('base64');
      socket.write(
        `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      let got = Buffer.alloc(0);
      sink = (d: Buffer) => {
        got = Buffer.concat([got, d]);
        const end = got.indexOf('\r\n\r\n');
        if (end === -1) return;
        sink = () => undefined;
        socket.removeListener('error', reject);
        if (!got.subarray(0, 12).toString().includes('101'))
          return reject(new Error(`upgrade refused: ${got.subarray(0, 40).toString()}`));
        resolve({ socket, rest: got.subarray(end + 4), onData });
      };
    });
  });
}

/** A frame for this room whose payload starts with a 16-digit number (timestamp or 0), padded to `size` bytes total. */
export function msgText(room: string, size: number, stamp = 0): string {
  const head = `{"kind":"msg","room":"${room}","payload":"`;
  const tail = '"}';
  let n = size - head.length - tail.length;
  n -= n % 4; // a real sealed payload is padded base64: a multiple of 4 characters
  return head + String(stamp).padStart(16, '0') + 'A'.repeat(Math.max(0, n - 16)) + tail;
}

export const stampOffset = (room: string): number =>
  `{"kind":"msg","room":"${room}","payload":"`.length;
