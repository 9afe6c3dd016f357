// Frames between replicas: each replica listens on its own inbox channel, and a frame goes to
// the inbox of every other replica that holds a socket of the target role in the room (their
// counts are known, redis-rooms.ts). Batched per event-loop iteration (setImmediate, after the
// poll phase): everything the reads of one iteration produced for one replica (every socket read,
// up to libuv's 32 reads of 64 KiB per socket, many rooms, presence) is ONE `PUBLISH`, up to
// BATCH_FLUSH_BYTES, so Redis and the receiver pay per batch, not per frame, and a replica never
// receives its own frames back. Per read (process.nextTick) a 16 KiB-frame batch was ~4 frames,
// per iteration ~27 (bench/relay-redis-ab.ts, docs/scaling.md). Flushed before any other command
// of the replica, so per-sender order holds against counts and presence too.
//
// Message: `<sender id, 16 chars>b-` then entries
// `<role initial m|p><u16 BE room length><room, latin1><u32 BE frame length><frame>`.
// The `PUBLISH` command is written as RESP pieces for one corked socket write: the small parts
// (RESP head, entry headers, frames under FRAME_VIEW_MIN_BYTES) copied into one buffer per batch,
// larger frames passed as they are, never copied: with 16 KiB frames, the copies and the
// allocations that held them (V8 counts them as external memory and collects for them) were
// what the sending replica spent its time on.
import type { Role } from '../rooms.ts';

export const BATCH_KIND = 0x62; // b
const ROLE_BYTE = { machine: 0x6d, phone: 0x70 } as const;
/**
 * A batch this large is published at once: one `PUBLISH` stays far below Redis's pub/sub output
 * limit for a subscriber (32 MiB by default) and the memory held per iteration stays bounded.
 */
export const BATCH_FLUSH_BYTES = 1024 * 1024;
/** Frames this large go to the socket as views; smaller ones cost less to copy than a write. */
export const FRAME_VIEW_MIN_BYTES = 4_096;

type Entry = { room: string; role: Role; frame: Buffer };

export type Batcher = {
  add(replica: string, room: string, role: Role, frame: Buffer): void;
  /** Publishes everything queued, now. */
  flush(): void;
};

/** `PUBLISH <channel> <header + entries>` in RESP, as pieces to write in order. */
export function publishPieces(channel: string, header: Buffer, entries: Entry[]): Buffer[] {
  let size = header.length;
  let copied = header.length + 2;
  for (const e of entries) {
    size += 7 + e.room.length + e.frame.length;
    copied += 7 + e.room.length + (e.frame.length >= FRAME_VIEW_MIN_BYTES ? 0 : e.frame.length);
  }
  const head = `*3\r\n$7\r\nPUBLISH\r\n$${channel.length}\r\n${channel}\r\n$${size}\r\n`;
  const out = Buffer.allocUnsafe(head.length + copied);
  const pieces: Buffer[] = [];
  let from = 0;
  let at = out.write(head, 0, 'latin1');
  at += header.copy(out, at);
  for (const e of entries) {
    out[at] = ROLE_BYTE[e.role];
    out.writeUInt16BE(e.room.length, at + 1);
    at += 3 + out.write(e.room, at + 3, 'latin1');
    out.writeUInt32BE(e.frame.length, at);
    at += 4;
    if (e.frame.length < FRAME_VIEW_MIN_BYTES) at += e.frame.copy(out, at);
    else {
      pieces.push(out.subarray(from, at), e.frame);
      from = at;
    }
  }
  out.write('\r\n', at, 'latin1');
  pieces.push(out.subarray(from, at + 2));
  return pieces;
}

/** The whole `PUBLISH` in one buffer (tests). */
export const encodePublish = (channel: string, header: Buffer, entries: Entry[]): Buffer =>
  Buffer.concat(publishPieces(channel, header, entries));

export function makeBatcher(
  publish: (replica: string, entries: Entry[]) => void,
  together: (publishAll: () => void) => void,
): Batcher {
  let queued = new Map<string, Entry[]>();
  let queuedBytes = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (queued.size === 0) return;
    const q = queued;
    queued = new Map();
    queuedBytes = 0;
    together(() => {
      for (const [replica, entries] of q) publish(replica, entries);
    });
  };
  return {
    add(replica, room, role, frame) {
      let entries = queued.get(replica);
      if (entries === undefined) queued.set(replica, (entries = []));
      entries.push({ room, role, frame });
      queuedBytes += 7 + room.length + frame.length;
      if (queuedBytes >= BATCH_FLUSH_BYTES) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

/**
 * Calls `deliver` for every entry of a batch body (the message after its header), in order.
 * The whole message at once; the receiving replica streams instead (makeBatchReader), and the
 * tests hold the two against each other.
 */
export function forEachEntry(
  body: Buffer,
  deliver: (room: string, role: Role, frame: Buffer) => void,
): void {
  let i = 0;
  while (i + 7 <= body.length) {
    const role: Role = body[i] === ROLE_BYTE.machine ? 'machine' : 'phone';
    const n = body.readUInt16BE(i + 1);
    if (i + 7 + n > body.length) return;
    const room = body.toString('latin1', i + 3, i + 3 + n);
    const start = i + 7 + n;
    const end = start + body.readUInt32BE(i + 3 + n);
    if (end > body.length) return; // never from our own replicas; ignore a truncated tail
    deliver(room, role, body.subarray(start, end));
    i = end;
  }
}

export type BatchReader = {
  /** A message of `bytes` (header included) on the inbox channel begins. */
  start(bytes: number): void;
  /** The next piece of it, as received; frames inside one piece are delivered as views of it. */
  push(piece: Buffer): void;
  /** The message is over, or was cut (connection lost): a partial entry is dropped. */
  end(): void;
};

/**
 * forEachEntry for a message that arrives in pieces (the socket's reads, resp.ts): a frame that
 * lies inside one piece is delivered as a view of it, with no copy; only a frame that spans
 * pieces is assembled, once. An entry whose length runs past the message is ignored, like a
 * truncated tail, and so is a message that is not a batch.
 */
export function makeBatchReader(
  headerBytes: number,
  deliver: (room: string, role: Role, frame: Buffer) => void,
): BatchReader {
  const head = Buffer.allocUnsafe(7 + 0xffff); // an entry head that spans pieces
  let headLen = 0;
  let skip = 0; // header bytes still to read
  let left = 0; // message bytes still to come after the current piece
  let ignore = false;
  let frame: Buffer | null = null; // a frame being assembled across pieces
  let frameAt = 0;
  let waiting = 0; // length of a frame that starts with the next piece
  let room = '';
  let role: Role = 'phone';
  // The last room id's bytes: a burst is mostly one room's frames, and comparing 22 bytes costs
  // less than decoding a new string per frame (~100 ns of latin1Slice here, profiled).
  const lastRoom = Buffer.alloc(0xffff);
  let lastRoomLen = -1;
  const roomOf = (b: Buffer, from: number, to: number): string => {
    const n = to - from;
    if (n === lastRoomLen) {
      let k = 0;
      while (k < n && b[from + k] === lastRoom[k]) k++;
      if (k === n) return room;
    }
    b.copy(lastRoom, 0, from, to);
    lastRoomLen = n;
    return b.toString('latin1', from, to);
  };
  /** The entry head is read and its frame starts at `i`: a view if it ends in this piece. */
  const atFrame = (piece: Buffer, i: number, len: number): number => {
    const end = piece.length;
    if (len > end - i + left) {
      ignore = true; // runs past the message
      return end;
    }
    if (i + len <= end) {
      deliver(room, role, piece.subarray(i, i + len));
      return i + len;
    }
    if (i === end) {
      waiting = len; // it starts with the next piece, which decides: view or assembly
      return end;
    }
    frame = Buffer.allocUnsafe(len);
    frameAt = 0;
    return i;
  };
  return {
    start(bytes) {
      skip = headerBytes;
      left = bytes;
      ignore = bytes < headerBytes;
      headLen = 0;
      frame = null;
      waiting = 0;
    },
    push(piece) {
      left -= piece.length;
      let i = 0;
      const end = piece.length;
      while (i < end && !ignore) {
        if (skip > 0) {
          const k = Math.min(skip, end - i);
          // The kind byte sits just before the header's last byte.
          if (skip >= 2 && skip - k < 2 && piece[i + skip - 2] !== BATCH_KIND) ignore = true;
          skip -= k;
          i += k;
          continue;
        }
        if (waiting > 0) {
          const len = waiting;
          waiting = 0;
          i = atFrame(piece, i, len);
          continue;
        }
        if (frame !== null) {
          const f: Buffer = frame;
          const n = piece.copy(f, frameAt, i, Math.min(end, i + f.length - frameAt));
          frameAt += n;
          i += n;
          if (frameAt === f.length) {
            frame = null;
            deliver(room, role, f);
          }
          continue;
        }
        if (headLen === 0 && end - i >= 3 && i + 7 + piece.readUInt16BE(i + 1) <= end) {
          // The common case: the whole entry head, and often the frame, inside this piece.
          const n = piece.readUInt16BE(i + 1);
          role = piece[i] === ROLE_BYTE.machine ? 'machine' : 'phone';
          room = roomOf(piece, i + 3, i + 3 + n);
          const len = piece.readUInt32BE(i + 3 + n);
          i = atFrame(piece, i + 7 + n, len);
          continue;
        }
        const need = headLen < 3 ? 3 : 7 + head.readUInt16BE(1);
        const k = piece.copy(head, headLen, i, Math.min(end, i + need - headLen));
        headLen += k;
        i += k;
        if (headLen < need || need === 3) continue;
        headLen = 0;
        role = head[0] === ROLE_BYTE.machine ? 'machine' : 'phone';
        room = roomOf(head, 3, need - 4);
        const len = head.readUInt32BE(need - 4);
        i = atFrame(piece, i, len);
      }
    },
    end() {
      frame = null;
      waiting = 0;
      headLen = 0;
      ignore = true;
    },
  };
}
