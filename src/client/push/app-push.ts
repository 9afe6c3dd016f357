import type { ClientFrame } from '../../../protocol/index.ts';
import { listenToWorker, makeBrowserPushPlatform } from './browser-platform.ts';
import { makePushClient, type PairedRoom, type PushClient, type PushKv } from './push-client.ts';
import { fetchVapidKey } from './vapid.ts';

/**
 * The push client with the browser's real APIs, for the app to create once at start. The app
 * connects it with three hooks (docs/push.md, "Wiring into the app"):
 * - after every `hello-ok` for a room: `push.onJoined(roomId)` (D7 refresh);
 * - its client's `pushEndpoint` dependency: `() => push.endpoint()` (forget unsubscribes);
 * - `sendFrame(roomId, frame)`: send on the socket of that room's relay, false when not joined.
 */
export function makeAppPushClient(options: {
  kv: PushKv;
  rooms: () => readonly PairedRoom[];
  sendFrame: (roomId: string, frame: ClientFrame) => boolean;
}): { push: PushClient; stop: () => void } {
  const push = makePushClient({
    platform: makeBrowserPushPlatform(),
    kv: options.kv,
    rooms: options.rooms,
    send: options.sendFrame,
    fetchVapid: (relay) => fetchVapidKey(relay),
    now: Date.now,
  });
  const stop = listenToWorker(push);
  void push.start();
  return { push, stop };
}
