import { ErrorBoundary, Match, Suspense, Switch, createEffect, lazy, onMount } from 'solid-js';
import { routeHref, type Route } from '../client/router.ts';
import { loadScreenStrings } from '../i18n/index.ts';
import { useUi } from './context.tsx';
import Inbox from './Inbox.tsx';
import { Header } from './widgets.tsx';

// The inbox is in the first chunk; every other screen is a lazy chunk loaded with its strings
// (size budget, A8).
const withStrings =
  <T,>(load: () => Promise<T>) =>
  () =>
    Promise.all([load(), loadScreenStrings()]).then(([screen]) => screen);
const Machine = lazy(withStrings(() => import('./screens/Machine.tsx')));
const Session = lazy(withStrings(() => import('./screens/Session.tsx')));
const NewSession = lazy(withStrings(() => import('./screens/NewSession.tsx')));
const Settings = lazy(withStrings(() => import('./screens/Settings.tsx')));
const Pair = lazy(withStrings(() => import('./screens/Pair.tsx')));
const Rules = lazy(withStrings(() => import('./screens/Rules.tsx')));
const Phones = lazy(withStrings(() => import('./screens/Phones.tsx')));
const LAZY_SCREENS = [Machine, Session, NewSession, Settings, Pair, Rules, Phones];

/**
 * A8: once the page has loaded and is idle, the other screens and their strings load (from the
 * worker's precache after the first visit), so moving to one draws it at once instead of the
 * blank "Connecting…" page of the Suspense fallback. (A route change is not a transition that
 * keeps the old screen meanwhile: its cards would stay tappable under the new screen's URL.)
 */
function preloadScreensWhenIdle() {
  const preload = () => LAZY_SCREENS.forEach((screen) => void screen.preload());
  const whenIdle = () =>
    'requestIdleCallback' in window ? requestIdleCallback(preload) : setTimeout(preload, 0);
  if (document.readyState === 'complete') whenIdle();
  else window.addEventListener('load', whenIdle, { once: true });
}

export function App() {
  const ui = useUi();
  const r = ui.route;
  // A session screen is made afresh for each session (a notification tap can lead from one
  // session straight to another): its transcript, reply box and focus belong to one session.
  // The card it focuses may change in place.
  const sessionKey = () => {
    const x = r();
    return x.name === 'session' ? `${x.roomId}/${x.sessionId}` : null;
  };
  const session = () => r() as Extract<Route, { name: 'session' }>;
  onMount(preloadScreensWhenIdle);
  // E6: a screen open on a room this phone just moved out of (room.rotate) follows the move.
  createEffect(() => {
    const x = r();
    const to = 'roomId' in x && x.roomId ? ui.state().moved[x.roomId] : undefined;
    if (to !== undefined && 'roomId' in x)
      location.replace(routeHref({ ...x, roomId: to } as Route));
  });
  return (
    <ErrorBoundary
      fallback={(e: unknown) => (
        <main class="page">
          <p class="banner bad" role="alert">
            {ui.t('error.loadFailed')} {String((e as Error)?.message ?? '')}
          </p>
          <a class="btn" href="#/">
            {ui.t('notFound.home')}
          </a>
        </main>
      )}
    >
      <Suspense fallback={<p class="page">{ui.t('link.connecting')}</p>}>
        <Switch
          fallback={
            <>
              <Header title={ui.t('notFound.title')} back={{ name: 'inbox' }} />
              <main class="page">
                <a class="btn" href={routeHref({ name: 'inbox' })}>
                  {ui.t('notFound.home')}
                </a>
              </main>
            </>
          }
        >
          <Match when={r().name === 'inbox'}>
            <Inbox />
          </Match>
          <Match when={r().name === 'pair'}>
            <Pair />
          </Match>
          <Match when={r().name === 'settings'}>
            <Settings />
          </Match>
          <Match
            when={(() => {
              const x = r();
              return x.name === 'machine' ? x : null;
            })()}
          >
            {(m) => <Machine roomId={m().roomId} />}
          </Match>
          <Match
            when={(() => {
              const x = r();
              return x.name === 'rules' ? x : null;
            })()}
          >
            {(m) => <Rules roomId={m().roomId} />}
          </Match>
          <Match
            when={(() => {
              const x = r();
              return x.name === 'phones' ? x : null;
            })()}
          >
            {(m) => <Phones roomId={m().roomId} />}
          </Match>
          <Match when={sessionKey()} keyed>
            {(_key: string) => (
              <Session
                roomId={session().roomId}
                sessionId={session().sessionId}
                card={session().card}
              />
            )}
          </Match>
          <Match
            when={(() => {
              const x = r();
              return x.name === 'new' ? x : null;
            })()}
          >
            {(n) => <NewSession roomId={n().roomId} />}
          </Match>
        </Switch>
      </Suspense>
    </ErrorBoundary>
  );
}
