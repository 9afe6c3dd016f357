import { ErrorBoundary, Match, Suspense, Switch, createEffect, lazy } from 'solid-js';
import { routeHref, type Route } from '../client/router.ts';
import { useUi } from './context.tsx';
import Inbox from './Inbox.tsx';
import { Header } from './widgets.tsx';

// The inbox is in the first chunk; every other screen is a lazy chunk (size budget).
const Machine = lazy(() => import('./screens/Machine.tsx'));
const Session = lazy(() => import('./screens/Session.tsx'));
const NewSession = lazy(() => import('./screens/NewSession.tsx'));
const Settings = lazy(() => import('./screens/Settings.tsx'));
const Pair = lazy(() => import('./screens/Pair.tsx'));
const Rules = lazy(() => import('./screens/Rules.tsx'));
const Phones = lazy(() => import('./screens/Phones.tsx'));

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
