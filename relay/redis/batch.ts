// The frames one replica publishes to a room's channel, batched per event-loop turn: every frame
// for a room that the turn produced (a burst read from one socket, or presence) goes out as ONE
// `PUBLISH`, so Redis and the receiving replicas pay per turn, not per frame (docs/scaling.md,
// measured by `npm run bench:relay -- --redis`). One queue per replica, flushed in the order rooms
// were first queued, and flushed before any other command, so per-sender order holds.
//
// Message: `<replica id, 16 chars>b-` then entries `<role initial m|p><u32 BE length><frame>`.
import type { Role } from '../rooms.ts';

export const BATCH_KIND = 0x62; // b
const ENTRY_HEAD_BYTES = 5;
const ROLE_BYTE = { machine: 0x6d, phone: 0x70 } as const;

export type Batcher = {
  add(room: string, role: Role, frame: Buffer): void;
  /** Publishes everything queued, now. */
  flush(): void;
};

export function makeBatcher(
  header: Buffer,
  publish: (room: string, message: Buffer) => void,
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
      for (const [room, parts] of q) publish(room, Buffer.concat(parts));
    });
  };
  return {
    add(room, role, frame) {
      let parts = queued.get(room);
      if (parts === undefined) queued.set(room, (parts = [header]));
      const head = Buffer.allocUnsafe(ENTRY_HEAD_BYTES);
      head[0] = ROLE_BYTE[role];
      head.writeUInt32BE(frame.length, 1);
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
export function forEachEntry(body: Buffer, deliver: (role: Role, frame: Buffer) => void): void {
  let i = 0;
  while (i + ENTRY_HEAD_BYTES <= body.length) {
    const role: Role = body[i] === ROLE_BYTE.machine ? 'machine' : 'phone';
    const end = i + ENTRY_HEAD_BYTES + body.readUInt32BE(i + 1);
    if (end > body.length) return; // never from our own replicas; ignore a truncated tail
    deliver(role, body.subarray(i + ENTRY_HEAD_BYTES, end));
    i = end;
  }
}
