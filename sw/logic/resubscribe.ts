import { encodeFrame, parseServerFrame, type PushSubscriptionJson } from '../../protocol/index.ts';
import type { SocketFactory, Timeouts } from './socket.ts';

export const RESUBSCRIBE_DEADLINE_MS = 10_000;

export type ResubscribeInput = {
  relayUrl: string;
  roomIds: readonly string[];
  /** The endpoint the browser replaced, to remove from every room (N2). */
  oldEndpoint: string | null;
  subscription: PushSubscriptionJson;
  socket: SocketFactory;
  timers: Timeouts;
  deadlineMs?: number;
};

/**
 * `pushsubscriptionchange` may fire while no page is open, so the worker tells the relay itself:
 * one short socket per relay, a hello per room, and once each room is joined, push-unsubscribe
 * of the old endpoint and push-subscribe of the new one. Resolves with the rooms it reached; the
 * page repeats the same on its next start (it re-subscribes after every hello, D7).
 */
export function resubscribeRooms(input: ResubscribeInput): Promise<string[]> {
  return new Promise((resolve) => {
    const reached: string[] = [];
    const waiting = [...input.roomIds];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      input.timers.clearTimeout(deadline);
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      try {
        socket.close(1000, 'resubscribed');
      } catch {
        // Nothing to clean up on a socket that never opened.
      }
      resolve(reached);
    };
    const deadline = input.timers.setTimeout(finish, input.deadlineMs ?? RESUBSCRIBE_DEADLINE_MS);
    if (waiting.length === 0) {
      input.timers.clearTimeout(deadline);
      resolve(reached);
      return;
    }
    let socket: ReturnType<SocketFactory>;
    try {
      socket = input.socket(input.relayUrl);
    } catch {
      input.timers.clearTimeout(deadline);
      resolve(reached);
      return;
    }
    socket.onopen = () => {
      for (const room of input.roomIds) {
        socket.send(encodeFrame({ kind: 'hello', room, role: 'phone' }));
      }
    };
    socket.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      const frame = parseServerFrame(ev.data);
      if (!frame.ok) return;
      // hello-ok carries no room: replies come in the order the hellos were sent.
      if (frame.value.kind === 'hello-ok') {
        const room = waiting.shift();
        if (room === undefined) return;
        const { endpoint } = input.subscription;
        if (input.oldEndpoint !== null && input.oldEndpoint !== endpoint) {
          socket.send(encodeFrame({ kind: 'push-unsubscribe', room, endpoint: input.oldEndpoint }));
        }
        socket.send(
          encodeFrame({ kind: 'push-subscribe', room, subscription: input.subscription }),
        );
        reached.push(room);
      } else if (frame.value.kind === 'error') {
        waiting.shift();
      }
      if (waiting.length === 0) finish();
    };
    socket.onclose = finish;
    socket.onerror = finish;
  });
}
