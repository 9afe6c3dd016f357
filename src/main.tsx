import { render } from 'solid-js/web';
import { makeAppBadge, type BadgeApi } from './client/app-badge.ts';
import { makeClient } from './client/client.ts';
import { makeIdbKv } from './client/idb-kv.ts';
import { loadNacl } from './client/nacl-on-demand.ts';
import { watchLifecycle } from './client/lifecycle.ts';
import { waitingOf } from './client/waiting.ts';
import type { PushClient } from './client/push/push-client.ts';
import { deviceName } from './client/phone-identity.ts';
import { pairingCodeIn } from './client/router.ts';
import { makeBrowserAuthenticator } from './client/webauthn.ts';
import { browserTimers, type SocketLike } from './client/socket.ts';
import { App } from './ui/App.tsx';
import { UiProvider, createUi, initialLocale } from './ui/context.tsx';
import { loadLocale } from './i18n/index.ts';
import './styles.css';

// D14: a pairing link carries the code in the fragment; it is read here, before anything else,
// and erased from the address bar and the history entry at once (replaceState, not a new entry).
const pairCode = pairingCodeIn(location.hash);
if (pairCode !== null)
  history.replaceState(null, '', `${location.pathname}${location.search}#/pair`);

const kv = makeIdbKv();
// The push client is a lazy chunk (size budget): until it has loaded there is no subscription,
// so there is nothing to unsubscribe on forget, and a hello-ok waits for it (D7 refresh).
let push: PushClient | null = null;
let resolvePush: (p: PushClient | null) => void = () => {};
const pushReady = new Promise<PushClient | null>((resolve) => (resolvePush = resolve));
const client = makeClient({
  kv,
  // The browser WebSocket's handler types are narrower than the injected interface's.
  socket: (url) => new WebSocket(url) as unknown as SocketLike,
  timers: browserTimers,
  pushEndpoint: () => push?.endpoint(),
  // E6: after a room.rotate the old room's subscription goes once this has finished.
  onJoined: (roomId) => pushReady.then((p) => p?.onJoined(roomId)),
  // F4: the push client's state for a forgotten room (if it has not loaded yet, its start drops
  // what belongs to rooms no longer paired).
  onForgotten: (roomId) => push?.forgetStored(roomId),
  phoneName: () => deviceName(navigator.userAgent),
  authenticator: makeBrowserAuthenticator(location),
  // A8: the crypto library is a lazy chunk, fetched beside the IndexedDB reads of start().
  loadCrypto: loadNacl,
});
// N2: makeAppPushClient re-subscribes on every app start (push.start()); it starts after
// the client so the paired rooms are known.
void client
  .start()
  .catch(() => undefined)
  .then(() => import('./client/push/app-push.ts'))
  .then(({ makeAppPushClient }) => {
    push = makeAppPushClient({
      kv,
      rooms: () => client.pairedRooms(),
      sendFrame: (roomId, frame) => client.sendFrame(roomId, frame),
    }).push;
    resolvePush(push);
  })
  .catch(() => resolvePush(null));
const badge = makeAppBadge(navigator as Navigator & BadgeApi);
client.subscribe(() => badge.show(waitingOf(client.state().machines).total));
// U4.offline: the phone's own network, told apart from the relay and the machine being away.
client.setNetwork(navigator.onLine);
window.addEventListener('offline', () => client.setNetwork(false));
window.addEventListener('online', () => client.setNetwork(true));
watchLifecycle({
  document,
  window,
  timers: browserTimers,
  suspend: () => client.suspendAll(),
  resume: () => client.kickAll(),
});
// Offline reading: what is still waiting in the coalesced cache write goes to disk when the
// page goes away.
window.addEventListener('pagehide', () => client.flush());
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') client.flush();
});
// A pairing link opened while the app is already open arrives as a hash change.
window.addEventListener('hashchange', () => {
  const code = pairingCodeIn(location.hash);
  if (code === null) return;
  history.replaceState(null, '', `${location.pathname}${location.search}#/pair`);
  latePairCode?.(code);
});
let latePairCode: ((code: string) => void) | undefined;

const root = document.getElementById('root');
// A non-English dictionary is a lazy chunk: load it before the first paint, not after.
if (root)
  void loadLocale(initialLocale()).finally(() =>
    render(() => {
      const ui = createUi(client, pairCode, pushReady);
      latePairCode = (code) => {
        ui.setPairCode(code);
        ui.go({ name: 'pair' });
      };
      return (
        <UiProvider value={ui}>
          <App />
        </UiProvider>
      );
    }, root),
  );
