import { WebSocket } from 'ws';
import {
  encodeBoxKey,
  fromBase64Url,
  openPhoneRemoved,
  sealPhoneMessage,
  encodeFrame,
  open,
  openRoomRotate,
  type BoxKeyPair,
  parseMachineMessage,
  parsePairing,
  parseServerFrame,
  roomKeys,
  seal,
  type ClientFrame,
  type MachineMessage,
  type PhoneMessage,
  type PushSubscriptionJson,
  type ServerFrame,
} from '../../protocol/index.ts';

// A phone built only from protocol/ over `ws`: joins the room of a pairing code, opens what the
// machine sends, seals what it sends back. Reusable by any Node test that needs a phone.

export type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type PhoneSend = DistributiveOmit<PhoneMessage, 'v' | 'ts'> & { ts?: number };

/** E6: who the phone is, kept across its connections (a phone that goes away and comes back). */
export type PhoneIdentity = {
  phoneId: string;
  name: string;
  boxKeyPair: BoxKeyPair;
  /** E9: the machine's box key, pinned from the pairing code only (never from a status). */
  machineBoxKey?: Uint8Array;
};

export type TestPhone = {
  /** The room it acts in now (a `room.rotate` moves it, E6). */
  readonly roomId: string;
  readonly key: Uint8Array;
  /** E6: set when made with an identity. */
  readonly identity: PhoneIdentity | undefined;
  /** E6: the rotations it followed (room ids) and the boxes it could not open (error codes). */
  readonly moves: string[];
  readonly rotateFailures: string[];
  /** E9: `phone.removed` boxes for this phone that opened with the pinned key. */
  readonly removals: string[];
  /** E6: phone.register with this identity now; resolves with the `phones` answering it. */
  register(
    extra?: Partial<Extract<PhoneSend, { type: 'phone.register' }>>,
  ): Promise<MachineMessage>;
  /** Subscribes push for the current room; a move subscribes the new room and unsubscribes this one. */
  subscribePush(subscription: PushSubscriptionJson): void;
  /** Every machine message opened, in order. */
  readonly messages: MachineMessage[];
  /** Every relay frame, in order (hello-ok, presence, error, msg). */
  readonly frames: ServerFrame[];
  /** Payloads that failed to open (should stay empty). */
  readonly undecryptable: string[];
  /** With an identity and a pinned machine key, sealed as `phone.sealed` (E9); else plain. */
  send(message: PhoneSend): void;
  /** Sent plain (sealed with the room key only), whatever the identity. */
  sendPlain(message: PhoneSend): void;
  /** Sends an arbitrary sealed object (for unknown types, wrong directions, …). */
  sendSealed(value: object): void;
  sendPayload(payload: string): void;
  /** A relay frame as is (push-subscribe, push-unsubscribe). */
  sendFrame(frame: ClientFrame): void;
  waitFor<T extends MachineMessage>(
    pred: (m: MachineMessage) => m is T,
    timeoutMs?: number,
    from?: number,
  ): Promise<T>;
  waitFor(
    pred: (m: MachineMessage) => boolean,
    timeoutMs?: number,
    from?: number,
  ): Promise<MachineMessage>;
  waitForFrame(pred: (f: ServerFrame) => boolean, timeoutMs?: number): Promise<ServerFrame>;
  /** Resolves when nothing matching arrived within `ms` (used only to prove an absence). */
  close(): Promise<void>;
};

export async function makeTestPhone(options: {
  relayUrl: string;
  pairingCode: string;
  now?: () => number;
  /** E6: a phone with an identity registers after every hello-ok and follows `room.rotate`. */
  identity?: PhoneIdentity;
  /** E9: send everything plain (a phone from before E9). */
  plain?: boolean;
}): Promise<TestPhone> {
  const pairing = parsePairing(options.pairingCode);
  if (!pairing.ok) throw new Error(`bad pairing code: ${pairing.code}`);
  let { roomId, key } = roomKeys(pairing.value.secretBytes);
  const identity = options.identity;
  // E9: the machine key comes from the code, which is all a phone can trust.
  if (identity !== undefined && identity.machineBoxKey === undefined) {
    const pinned = pairing.value.boxKey ? fromBase64Url(pairing.value.boxKey) : null;
    if (pinned !== null) identity.machineBoxKey = pinned;
  }
  const moves: string[] = [];
  const rotateFailures: string[] = [];
  const removals: string[] = [];
  let push: PushSubscriptionJson | undefined;
  const now = options.now ?? Date.now;
  const messages: MachineMessage[] = [];
  const frames: ServerFrame[] = [];
  const undecryptable: string[] = [];
  const waiters = new Set<() => void>();
  const ws = new WebSocket(options.relayUrl);
  const sendPayload = (payload: string) =>
    ws.send(encodeFrame({ kind: 'msg', room: roomId, payload }));
  const sendPlain = (m: PhoneSend) => sendPayload(seal({ v: 1, ts: now(), ...m }, key));
  const sendMessage = (m: PhoneSend) => {
    if (identity?.machineBoxKey === undefined || options.plain) return sendPlain(m);
    const inner = { v: 1, ts: now(), ...m };
    const text = JSON.stringify(inner);
    const box = sealPhoneMessage(text, identity.machineBoxKey, identity.boxKeyPair.secretKey);
    const sealed = {
      v: 1,
      type: 'phone.sealed',
      ts: inner.ts,
      phoneId: identity.phoneId,
      message: text,
      box,
    };
    sendPayload(seal(sealed, key));
  };

  function sendRegister(extra: Partial<Extract<PhoneSend, { type: 'phone.register' }>>): string {
    const requestId = extra.requestId ?? crypto.randomUUID();
    sendMessage({
      type: 'phone.register',
      requestId,
      phoneId: identity!.phoneId,
      name: identity!.name,
      boxKey: encodeBoxKey(identity!.boxKeyPair.publicKey),
      ...extra,
    });
    return requestId;
  }

  // E6: pin the machine's key once; open only our own room.rotate, only with the pinned key;
  // then join the new room, move push, and forget the old secret.
  function follow(m: MachineMessage): void {
    if (identity === undefined) return;
    if (m.type === 'phone.removed' && m.phoneId === identity.phoneId && identity.machineBoxKey) {
      const r = openPhoneRemoved(
        m.box,
        identity.phoneId,
        identity.machineBoxKey,
        identity.boxKeyPair.secretKey,
      );
      if (r.ok) removals.push(m.box);
      return;
    }
    if (m.type !== 'room.rotate' || m.phoneId !== identity.phoneId) return;
    if (identity.machineBoxKey === undefined) return void rotateFailures.push('no-pinned-key');
    const r = openRoomRotate(m.box, identity.machineBoxKey, identity.boxKeyPair.secretKey);
    if (!r.ok) return void rotateFailures.push(r.code);
    const oldRoom = roomId;
    const next = roomKeys(r.value.secretBytes);
    roomId = next.roomId;
    key = next.key;
    moves.push(roomId);
    ws.send(encodeFrame({ kind: 'hello', room: roomId, role: 'phone' }));
    if (push !== undefined) {
      ws.send(encodeFrame({ kind: 'push-subscribe', room: roomId, subscription: push }));
      ws.send(encodeFrame({ kind: 'push-unsubscribe', room: oldRoom, endpoint: push.endpoint }));
    }
  }
  ws.on('message', (data) => {
    const parsed = parseServerFrame(data.toString());
    if (!parsed.ok) return;
    frames.push(parsed.value);
    const f = parsed.value;
    // E6: after a move the old room's secret is dropped; what still arrives there is not read.
    if (f.kind === 'msg' && f.room === roomId) {
      const opened = open(f.payload, key);
      if (!opened.ok) undecryptable.push(f.payload);
      else {
        const m = parseMachineMessage(opened.value);
        if (m.ok) {
          messages.push(m.value);
          follow(m.value);
        } else throw new Error(`the machine sent an invalid message: ${m.message}`);
      }
    }
    // E6: after every hello-ok, and when the machine comes into the room (a phone that moved
    // may arrive in the new room before the machine does).
    const machineCame = f.kind === 'presence' && f.role === 'machine' && f.online;
    const joined = f.kind === 'hello-ok' || (machineCame && f.room === roomId);
    if (joined && identity !== undefined && ws.readyState === WebSocket.OPEN) {
      sendRegister({});
    }
    for (const w of [...waiters]) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      ws.send(encodeFrame({ kind: 'hello', room: roomId, role: 'phone' }));
    });
    ws.once('error', reject);
    const check = () => {
      if (frames.some((f) => f.kind === 'hello-ok')) {
        waiters.delete(check);
        resolve();
      }
    };
    waiters.add(check);
  });

  function wait<T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const hit = find();
      if (hit !== undefined) return resolve(hit);
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(
            `timed out waiting for ${what}; got: ${messages.map((m) => m.type).join(', ')}`,
          ),
        );
      }, timeoutMs);
      const check = () => {
        const h = find();
        if (h !== undefined) {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(h);
        }
      };
      waiters.add(check);
    });
  }

  return {
    get roomId() {
      return roomId;
    },
    get key() {
      return key;
    },
    identity,
    moves,
    rotateFailures,
    removals,
    register(extra = {}) {
      if (identity === undefined) throw new Error('this test phone has no identity');
      const from = messages.length;
      const requestId = sendRegister(extra);
      return wait(
        () =>
          messages
            .slice(from)
            .find(
              (m) =>
                (m.type === 'phones' || m.type === 'error') &&
                (m.type === 'error' || m.requestId === requestId),
            ),
        5000,
        'the answer to phone.register',
      );
    },
    subscribePush(subscription) {
      push = subscription;
      ws.send(encodeFrame({ kind: 'push-subscribe', room: roomId, subscription }));
    },
    messages,
    frames,
    undecryptable,
    send: sendMessage,
    sendPlain,
    sendSealed: (value) => sendPayload(seal(value, key)),
    sendPayload,
    sendFrame: (frame) => ws.send(encodeFrame(frame)),
    waitFor: ((pred: (m: MachineMessage) => boolean, timeoutMs = 5000, from = 0) =>
      wait(
        () => messages.slice(from).find(pred),
        timeoutMs,
        'a machine message',
      )) as TestPhone['waitFor'],
    waitForFrame: (pred, timeoutMs = 5000) =>
      wait(() => frames.find(pred), timeoutMs, 'a relay frame'),
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
