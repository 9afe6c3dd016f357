// One WebSocket and the spec's "Relay enforcement details": first-frame rule, joins, msg
// forwarding, push authorisation. A class rather than closures because there is one per socket
// and idle sockets must stay small (RL7: ≤ 7.5 KiB each, most of it `ws`'s own).
import { isUtf8 } from 'node:buffer';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import {
  encodeFrame,
  MAX_ENVELOPE_BYTES,
  MAX_PUSH_PAYLOAD_BYTES,
  parseClientFrame,
  type PushHint,
  type RelayErrorCode,
  type Role,
} from '../protocol/index.ts';
import type { Context } from './context.ts';
import { LIMITS, type LimitName } from './counters.ts';
import { idWords, loadedIdEquals } from './control-scan.ts';
import { take } from './rate-limit.ts';
import { otherRole, type Peer } from './rooms.ts';
import { ROOM_START, scanFast, scanMsgAfter } from './scan.ts';
import { subscribe } from './subscribe.ts';
import type { TimerHandle } from './timers.ts';

const CLOSE_POLICY = 1008;
const SEND_TEXT = { binary: false, compress: false, fin: true } as const;
const BRACE = Buffer.from('}');

type ErrorCode = RelayErrorCode;

/** One room this socket joined; `words` is the id as the hot path compares it with the loaded
 * frame (control-scan.ts idWords). */
type Joined = {
  readonly room: string;
  readonly role: Role;
  readonly other: Role;
  readonly words: readonly number[];
};

export class Connection implements Peer {
  lastSeenMs: number;
  alive = true;
  /** Which slice of the ping sweep visits this socket (P10, ping-sweep.ts). */
  pingSlice = 0;
  /** Rooms this socket joined and its role in each (at most maxRoomsPerSocket, so a list);
   * null until a hello succeeded. */
  joined: Joined[] | null = null;
  tokens: number;
  tokensMs: number;
  corked = false;
  closed = false;
  helloTimer: TimerHandle | null;
  private subscriptionOps: Promise<void> = Promise.resolve();

  constructor(
    readonly ctx: Context,
    readonly ws: WebSocket,
    readonly socket: Socket,
    readonly ipKey: string,
  ) {
    const now = ctx.timers.now();
    this.lastSeenMs = now;
    this.tokens = ctx.settings.msgBurst;
    this.tokensMs = now;
    this.helloTimer = ctx.timers.setTimeout(() => {
      this.helloTimer = null;
      // P9: judged after the loop has read what already arrived — under a join burst a busy
      // loop runs due timers before it reads the hellos waiting in the kernel.
      ctx.afterReads(() => {
        if (this.joined !== null || this.closed) return;
        ctx.counters.limits[LIMITS.helloDeadline]++;
        this.refuseHello(`no hello within ${ctx.settings.helloDeadlineMs} ms`);
      });
    }, ctx.settings.helloDeadlineMs);
  }

  /** Peer.send: batches writes per event-loop turn (cork), and drops a reader that cannot keep up. */
  send(data: Buffer | string): void {
    if (this.closed) return;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      this.ctx.turn.uncorkLater(this);
    }
    this.ws.send(data, SEND_TEXT);
    const c = this.ctx.counters;
    c.framesOut++;
    c.bytesOut += data.length; // strings here are the relay's own ASCII frames
    if (this.ws.bufferedAmount > this.ctx.settings.maxBufferedBytes) {
      c.limits[LIMITS.bufferedBytes]++;
      this.ctx.log.warn({ ip: this.ipKey }, 'unsent buffer over the cap; terminating socket');
      this.closed = true;
      this.ws.terminate();
    }
  }

  error(code: ErrorCode, message: string): void {
    // The code only: messages may quote client input.
    this.ctx.log.debug({ code }, 'refused frame');
    this.ctx.counters.refusals[code]++;
    this.send(encodeFrame({ kind: 'error', code, message }));
  }

  /** A `limit` error, counted by which limit (P5). */
  limit(which: LimitName, message: string): void {
    this.ctx.counters.limits[which]++;
    this.error('limit', message);
  }

  private refuseHello(message: string): void {
    this.error('bad-hello', message);
    this.closed = true;
    this.ws.close(CLOSE_POLICY, 'bad-hello');
  }

  onPong(): void {
    this.alive = true;
    this.lastSeenMs = this.ctx.timers.now();
  }

  onMessage(data: Buffer, isBinary: boolean): void {
    if (this.closed) return;
    const c = this.ctx.counters;
    c.framesIn++;
    c.bytesIn += data.length;
    const now = this.ctx.turn.now();
    this.lastSeenMs = now;
    if (this.joined === null) return this.onFirstFrame(data, isBinary);
    const s = this.ctx.settings;
    if (s.rateLimits && !this.takeToken(now)) {
      return this.limit(
        LIMITS.msgRate,
        `rate limit: ${s.msgRatePerSec} frames/s, burst ${s.msgBurst}`,
      );
    }
    if (isBinary) return this.error('bad-frame', 'binary frames are not allowed');
    if (data.length > MAX_ENVELOPE_BYTES) {
      return this.error(
        'too-large',
        `frame is ${data.length} bytes, over the ${MAX_ENVELOPE_BYTES}-byte cap`,
      );
    }
    const fast = scanFast(data);
    if (fast > 0) {
      // The common case: a push-free envelope whose payload the scan found printable ASCII, for
      // a room this socket joined (its bytes equal a valid id's): the whole frame is ASCII, so
      // valid UTF-8 without a second pass over it, and its own bytes go out as they came.
      const j = this.joinedRoom(ROOM_START, fast);
      if (j !== null) return this.ctx.rooms.broadcast(j.room, j.other, data);
    }
    if (!isUtf8(data)) return this.error('bad-frame', 'frame is not valid UTF-8');
    const scanned = scanMsgAfter(data, fast);
    if (scanned !== null) {
      const j = this.joinedRoom(scanned.roomStart, scanned.roomEnd);
      // Not a joined room (or not a valid id): the parser gives the exact reply.
      if (j === null) return this.onSlowFrame(data);
      // The common case: no push hint, so the frame's own bytes go out as they came.
      if (scanned.pushPayload === null) return this.ctx.rooms.broadcast(j.room, j.other, data);
      const push =
        scanned.pushTag === null
          ? { payload: scanned.pushPayload }
          : { payload: scanned.pushPayload, tag: scanned.pushTag };
      return this.onMsg(j.room, data, push, scanned.pushStart);
    }
    this.onSlowFrame(data);
  }

  /** The joined room named by bytes [start, end) of the frame scanFast loaded, found by
   * comparing its bytes there (no string built). */
  private joinedRoom(start: number, end: number): Joined | null {
    const joined = this.joined as Joined[];
    const n = end - start;
    for (let k = 0; k < joined.length; k++) {
      const j = joined[k] as Joined;
      if (loadedIdEquals(start, n, j.words)) return j;
    }
    return null;
  }

  private roleIn(room: string): Role | undefined {
    const joined = this.joined;
    if (joined !== null) for (const j of joined) if (j.room === room) return j.role;
    return undefined;
  }

  private takeToken(now: number): boolean {
    const b = { tokens: this.tokens, updatedMs: this.tokensMs };
    const s = this.ctx.settings;
    const ok = take(b, now, s.msgRatePerSec / 1000, s.msgBurst);
    this.tokens = b.tokens;
    this.tokensMs = b.updatedMs;
    return ok;
  }

  private onFirstFrame(data: Buffer, isBinary: boolean): void {
    if (isBinary) return this.refuseHello('the first frame must be a hello text frame, not binary');
    if (data.length > MAX_ENVELOPE_BYTES)
      return this.refuseHello(`frame is over the ${MAX_ENVELOPE_BYTES}-byte cap`);
    const parsed = parseClientFrame(data);
    if (!parsed.ok) return this.refuseHello(parsed.message);
    if (parsed.value.kind !== 'hello')
      return this.refuseHello(`the first frame must be a hello, not "${parsed.value.kind}"`);
    this.joined = [];
    this.join(parsed.value.room, parsed.value.role, true);
  }

  private join(room: string, role: Role, first: boolean): void {
    const ctx = this.ctx;
    const joined = this.joined as Joined[];
    const current = this.roleIn(room);
    if (current === role)
      return this.send(encodeFrame({ kind: 'hello-ok', peers: ctx.rooms.peers(room) }));
    if (current !== undefined)
      return this.error('bad-hello', `this socket already joined the room as ${current}`);
    const s = ctx.settings;
    let refusal: string | null = null;
    let which: LimitName = LIMITS.roomsPerSocket;
    if (joined.length >= s.maxRoomsPerSocket)
      refusal = `at most ${s.maxRoomsPerSocket} rooms per socket`;
    else {
      const max = role === 'phone' ? s.maxPhonesPerRoom : s.maxMachinesPerRoom;
      which = role === 'phone' ? LIMITS.phonesPerRoom : LIMITS.machinesPerRoom;
      if (ctx.rooms.count(room, role) >= max) refusal = `at most ${max} ${role} sockets per room`;
    }
    if (refusal !== null) {
      this.limit(which, refusal);
      if (first) {
        this.joined = null;
        this.closed = true;
        this.ws.close(CLOSE_POLICY, 'limit');
      }
      return;
    }
    if (this.helloTimer !== null) {
      ctx.timers.clearTimeout(this.helloTimer);
      this.helloTimer = null;
    }
    ctx.rooms.ready(room, () => {
      // With Redis this runs later: the socket may have closed or joined meanwhile.
      if (this.joined === null || this.closed) return;
      const now = this.roleIn(room);
      if (now === role)
        return this.send(encodeFrame({ kind: 'hello-ok', peers: ctx.rooms.peers(room) }));
      if (now !== undefined)
        return this.error('bad-hello', `this socket already joined the room as ${now}`);
      this.joined.push({ room, role, other: otherRole(role), words: idWords(room) });
      ctx.rooms.join(room, role, this);
      this.send(encodeFrame({ kind: 'hello-ok', peers: ctx.rooms.peers(room) }));
      ctx.presence.joined(room, role);
      if (role === 'machine') ctx.subscriptionLife.machineJoined(room);
      ctx.log.debug({ room: room.slice(0, 8), role }, 'joined');
    });
  }

  private onMsg(room: string, data: Buffer, push: PushHint | null, pushStart: number): void {
    // Size caps first, as in parseClientFrame, so both paths give the same reply.
    if (push !== null && Buffer.byteLength(push.payload) > MAX_PUSH_PAYLOAD_BYTES) {
      return this.error('too-large', `push.payload is over the ${MAX_PUSH_PAYLOAD_BYTES}-byte cap`);
    }
    const role = this.roleIn(room);
    if (role === undefined) return this.error('bad-frame', 'not joined to this room');
    if (push !== null && role === 'phone')
      return this.error('bad-frame', 'a phone may not send a push hint');
    // Phones never receive `push` (D6): strip it; otherwise forward the bytes as they came.
    const out =
      push === null
        ? data
        : pushStart >= 0
          ? Buffer.concat([data.subarray(0, pushStart), BRACE])
          : stripPush(data);
    this.ctx.rooms.broadcast(room, otherRole(role), out);
    if (push !== null) {
      this.ctx.push.onPushHint(room, this.ipKey, push.payload, push.tag ?? null, (code, message) =>
        code === 'limit' ? this.limit(LIMITS.pushRate, message) : this.error(code, message),
      );
    }
  }

  private onSlowFrame(data: Buffer): void {
    const parsed = parseClientFrame(data);
    if (!parsed.ok)
      return this.error(parsed.code === 'too-large' ? 'too-large' : 'bad-frame', parsed.message);
    const f = parsed.value;
    switch (f.kind) {
      case 'hello':
        return this.join(f.room, f.role, false);
      case 'msg':
        return this.onMsg(f.room, data, f.push ?? null, -1);
      case 'push-subscribe':
      case 'push-unsubscribe': {
        if (this.roleIn(f.room) !== 'phone') {
          return this.error('bad-frame', `${f.kind} needs a socket joined to this room as phone`);
        }
        const room = f.room;
        const op =
          f.kind === 'push-subscribe'
            ? () =>
                subscribe(this.ctx, room, f.subscription, this.ipKey, (code, message, which) =>
                  which ? this.limit(which, message) : this.error(code, message),
                )
            : async () => void (await this.ctx.store.remove(room, f.endpoint));
        // In order per socket: an unsubscribe never overtakes the subscribe before it.
        this.subscriptionOps = this.subscriptionOps.then(op).catch((e: unknown) => {
          this.ctx.log.error(
            { room: room.slice(0, 8), error: (e as Error).message },
            'subscription store failed',
          );
        });
        return;
      }
    }
  }

  /** Settles when every queued subscription operation of this socket is done. */
  settled(): Promise<void> {
    return this.subscriptionOps;
  }

  onClose(): void {
    this.closed = true;
    if (this.helloTimer !== null) this.ctx.timers.clearTimeout(this.helloTimer);
    if (this.joined === null) return;
    for (const { room, role } of this.joined) {
      const remaining = this.ctx.rooms.leave(room, role, this);
      this.ctx.presence.left(room, role, remaining);
    }
    this.joined = null;
  }
}

function stripPush(data: Buffer): Buffer {
  const o = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
  delete o.push;
  return Buffer.from(JSON.stringify(o));
}
