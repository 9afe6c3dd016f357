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
// The whole `PUBLISH` command is written into one buffer sized up front (RESP, as the client
// would), so a batch costs one allocation and one copy of its frames: with 16 KiB frames the
// allocations, not the work, were what the sending replica spent its time on.
import type { Role } from '../rooms.ts';

export const BATCH_KIND = 0x62; // b
const ROLE_BYTE = { machine: 0x6d, phone: 0x70 } as const;

type Entry = { room: string; role: Role; frame: Buffer };

export type Batcher = {
  add(replica: string, room: string, role: Role, frame: Buffer): void;
  /** Publishes everything queued, now. */
  flush(): void;
};

/** `PUBLISH <channel> <header + entries>` in RESP, ready for the socket. */
export function encodePublish(channel: string, header: Buffer, entries: Entry[]): Buffer {
  let size = header.length;
  for (const e of entries) size += 7 + e.room.length + e.frame.length;
  const head = `*3\r\n$7\r\nPUBLISH\r\n$${channel.length}\r\n${channel}\r\n$${size}\r\n`;
  const out = Buffer.allocUnsafe(head.length + size + 2);
  let at = out.write(head, 0, 'latin1');
  at += header.copy(out, at);
  for (const e of entries) {
    out[at] = ROLE_BYTE[e.role];
    out.writeUInt16BE(e.room.length, at + 1);
    at += 3 + out.write(e.room, at + 3, 'latin1');
    out.writeUInt32BE(e.frame.length, at);
    at += 4 + e.frame.copy(out, at + 4);
  }
  out.write('\r\n', at, 'latin1');
  return out;
}

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
