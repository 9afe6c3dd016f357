// Frames between replicas: each replica listens on its own inbox channel, and a frame goes to
// the inbox of every other replica that holds a socket of the target role in the room (their
// counts are known, redis-rooms.ts). Batched per event-loop turn: everything one turn produced
// for one replica (a burst read from one socket, many rooms, presence) is ONE `PUBLISH`, so Redis
// and the receiver pay per turn, not per frame, and a replica never receives its own frames back
// (measured by `npm run bench:relay -- --redis`, docs/scaling.md). Flushed before any other
// command of the replica, so per-sender order holds against counts and presence too.
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
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (queued.size === 0) return;
    const q = queued;
    queued = new Map();
    together(() => {
      for (const [replica, entries] of q) publish(replica, entries);
    });
  };
  return {
    add(replica, room, role, frame) {
      let entries = queued.get(replica);
      if (entries === undefined) queued.set(replica, (entries = []));
      entries.push({ room, role, frame });
      if (!scheduled) {
        scheduled = true;
        process.nextTick(flush);
      }
    },
    flush,
  };
}

/** Calls `deliver` for every entry of a batch body (the message after its header), in order. */
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
