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
import type { Role } from '../rooms.ts';

export const BATCH_KIND = 0x62; // b
const ROLE_BYTE = { machine: 0x6d, phone: 0x70 } as const;

export type Batcher = {
  add(replica: string, room: string, role: Role, frame: Buffer): void;
  /** Publishes everything queued, now. */
  flush(): void;
};

export function makeBatcher(
  header: Buffer,
  publish: (replica: string, message: Buffer) => void,
  together: (publishAll: () => void) => void,
): Batcher {
  let queued = new Map<string, Buffer[]>();
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (queued.size === 0) return;
    const q = queued;
    queued = new Map();
    together(() => {
      for (const [replica, parts] of q) publish(replica, Buffer.concat(parts));
    });
  };
  return {
    add(replica, room, role, frame) {
      let parts = queued.get(replica);
      if (parts === undefined) queued.set(replica, (parts = [header]));
      const n = Buffer.byteLength(room, 'latin1');
      const head = Buffer.allocUnsafe(7 + n);
      head[0] = ROLE_BYTE[role];
      head.writeUInt16BE(n, 1);
      head.write(room, 3, 'latin1');
      head.writeUInt32BE(frame.length, 3 + n);
      parts.push(head, frame);
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
