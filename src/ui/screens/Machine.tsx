import { For, Show } from 'solid-js';
import { extensionsOf, startedAtDesk } from '../../client/extensions.ts';
import { phonesOffered } from '../../client/phones.ts';
import { sessionsByActivity } from '../../client/machine-view.ts';
import { routeHref } from '../../client/router.ts';
import { ByKey } from '../ByKey.tsx';
import { useUi } from '../context.tsx';
import { SessionChip } from '../SessionChip.tsx';
import { Icon } from '../icons.tsx';
import {
  AsOf,
  Header,
  PageTitle,
  Presence,
  RelayNotices,
  RepairBanner,
  PhonesWaitingBanner,
  WaitingBanner,
  RowLink,
  reasonText,
} from '../widgets.tsx';

export default function Machine(props: { roomId: string }) {
  const ui = useUi();
  const view = () => ui.state().machines.find((m) => m.roomId === props.roomId);
  const forget = async () => {
    const v = view();
    if (!v) return;
    // E9: the phone's identity goes with the secret, so pairing again makes a new phone that must
    // be let in — said before, not discovered after.
    const ask = phonesOffered(v) ? 'machine.forgetConfirmPhones' : 'machine.forgetConfirm';
    if (!window.confirm(ui.t(ask, { name: v.name }))) return;
    await ui.client.forget(v.roomId);
    ui.go({ name: 'inbox' });
  };
  return (
    <>
      <Header title={view()?.name ?? ui.t('machine.title')} back={{ name: 'inbox' }} />
      <main class="page">
        <Show when={view()} fallback={<p class="empty">{ui.t('machine.unknown')}</p>}>
          {(v) => (
            <>
              <RelayNotices relays={[v().relay]} />
              <RepairBanner view={v()} />
              <WaitingBanner view={v()} />
              <PhonesWaitingBanner view={v()} />
              <PageTitle>{v().name}</PageTitle>
              <section class="section" aria-labelledby="machine-status">
                <h2 id="machine-status" class="visually-hidden">
                  {ui.t('machine.title')}
                </h2>
                <p class="status-line">
                  <Presence view={v()} />
                </p>
                <AsOf view={v()} />
                <Show when={v().status} fallback={<p class="empty">{ui.t('machine.noData')}</p>}>
                  {(s) => (
                    <ul class="facts">
                      <li>{ui.t('machine.plugin', { version: s().pluginVersion })}</li>
                      <Show when={s().dshVersion}>
                        <li>{ui.t('machine.dsh', { version: s().dshVersion! })}</li>
                      </Show>
                      <Show when={v().statusAt}>
                        <li>{ui.t('machine.lastStatus', { time: ui.time(v().statusAt!) })}</li>
                      </Show>
                    </ul>
                  )}
                </Show>
              </section>
              <Show when={v().errors.some((e) => !e.sessionId)}>
                <section class="section" aria-labelledby="machine-errors">
                  <h2 id="machine-errors">{ui.t('session.errors')}</h2>
                  <For
                    each={v()
                      .errors.filter((e) => !e.sessionId)
                      .slice(0, 5)}
                  >
                    {(e) => (
                      <p class="banner bad">
                        {ui.time(e.at)} — {reasonText(ui.t, e.reason, e.message)}
                      </p>
                    )}
                  </For>
                </section>
              </Show>
              <section class="section" aria-labelledby="machine-sessions">
                <h2 id="machine-sessions">{ui.t('machine.sessions')}</h2>
                <Show when={sessionsByActivity(v()).length === 0}>
                  <p class="empty">{ui.t('machine.noSessions')}</p>
                </Show>
                <ul class="list">
                  <ByKey each={sessionsByActivity(v())} key={(s) => s.sessionId}>
                    {(s) => (
                      <li>
                        <RowLink
                          href={routeHref({
                            name: 'session',
                            roomId: v().roomId,
                            sessionId: s().sessionId,
                          })}
                        >
                          <span class="row-title">{s().title}</span>
                          <span class="chips">
                            <SessionChip view={v()} session={s()} />
                            <Show when={s().dispatched}>
                              <span class="chip">{ui.t('session.dispatched')}</span>
                            </Show>
                            <Show when={startedAtDesk(s())}>
                              <span class="chip">{ui.t('session.atDeskChip')}</span>
                            </Show>
                            <Show when={s().access === 'full'}>
                              <span class="chip danger">{ui.t('session.fullAccess')}</span>
                            </Show>
                          </span>
                          <Show when={s().activity}>
                            <span class="row-sub">
                              {ui.t('session.activity', { tool: s().activity! })}
                            </span>
                          </Show>
                        </RowLink>
                      </li>
                    )}
                  </ByKey>
                </ul>
              </section>
              <Show when={extensionsOf(v()).approvalRules}>
                <SubScreenLink
                  id="machine-rules"
                  title={ui.t('rules.title')}
                  link={ui.t('rules.link')}
                  href={routeHref({ name: 'rules', roomId: v().roomId })}
                  count={v().rules && ui.t('rules.count', { count: v().rules!.length })}
                />
              </Show>
              <Show when={phonesOffered(v())}>
                <SubScreenLink
                  id="machine-phones"
                  title={ui.t('phones.title')}
                  link={ui.t('phones.link')}
                  href={routeHref({ name: 'phones', roomId: v().roomId })}
                  count={
                    v().phones &&
                    ui.t('phones.count', {
                      count: v().phones!.filter((p) => !p.revoked).length,
                    })
                  }
                />
              </Show>
              <div class="actions">
                {/* E9.9: a phone still waiting to be let in cannot start anything yet. */}
                <Show when={ui.blocked(v().roomId) !== 'phone-pending'}>
                  <a class="btn primary" href={routeHref({ name: 'new', roomId: v().roomId })}>
                    <Icon name="plus" />
                    {ui.t('machine.start')}
                  </a>
                </Show>
                <a class="btn" href={routeHref({ name: 'pair' })}>
                  <Icon name="link" />
                  {ui.t('machine.repair')}
                </a>
                <button type="button" class="btn deny" onClick={() => void forget()}>
                  {ui.t('machine.forget')}
                </button>
              </div>
            </>
          )}
        </Show>
      </main>
    </>
  );
}

/** A section of the machine screen that leads to one of its sub-screens (Rules, Phones). */
function SubScreenLink(props: {
  id: string;
  title: string;
  link: string;
  href: string;
  /** "Rules: 3" once the machine has sent the list. */
  count: string | undefined | null | false;
}) {
  return (
    <section class="section" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <ul class="list">
        <li>
          <RowLink href={props.href}>
            <span class="row-title">{props.link}</span>
            <Show when={props.count}>
              <span class="row-sub">{props.count}</span>
            </Show>
          </RowLink>
        </li>
      </ul>
    </section>
  );
}
