import { createSignal, For, onCleanup, onMount, Show, type JSX } from 'solid-js';
import type { MachineView } from '../client/machine-view.ts';
import type { OutboxEntry } from '../client/outbox.ts';
import { othersWaiting, waitingEntry } from '../client/phones.ts';
import { presenceOf } from '../client/presence.ts';
import type { Route } from '../client/router.ts';
import { routeHref } from '../client/router.ts';
import { hasKey } from '../i18n/index.ts';
import type { SessionState } from '../../protocol/index.ts';
import { useUi } from './context.tsx';
import { Icon, type IconName } from './icons.tsx';

/**
 * U4: the sticky bar holds one line (the title ends in an ellipsis; screens that can have a long
 * title repeat it in full in the page body with PageTitle), so it never grows over the content.
 */
export function Header(props: { title: string; back?: Route }) {
  const { t } = useUi();
  return (
    <header class="bar">
      <Show when={props.back}>
        {(back) => (
          <a class="icon-btn" href={routeHref(back())} aria-label={t('nav.back')}>
            <Icon name="back" />
          </a>
        )}
      </Show>
      <h1>{props.title}</h1>
      <a class="icon-btn" href={routeHref({ name: 'settings' })} aria-label={t('nav.settings')}>
        <Icon name="settings" />
      </a>
    </header>
  );
}

/**
 * The whole title, wrapped, at the top of the page body (the bar's copy may be cut). U4.1: a long
 * title at large text would fill the first screen, so it shows PAGE_TITLE_LINES lines and a
 * button opens the rest; the whole text stays in the element, for screen readers and search.
 */
export function PageTitle(props: { children: JSX.Element }) {
  const ui = useUi();
  const [open, setOpen] = createSignal(false);
  const [clipped, setClipped] = createSignal(false);
  let el: HTMLParagraphElement | undefined;
  onMount(() => {
    if (typeof ResizeObserver === 'undefined' || !el) return;
    const title = el;
    const measure = () => setClipped(title.scrollHeight > title.clientHeight + 1);
    const observer = new ResizeObserver(measure);
    observer.observe(title);
    onCleanup(() => observer.disconnect());
  });
  return (
    <>
      <p ref={el} class="page-title" classList={{ clamped: !open() }}>
        {props.children}
      </p>
      <Show when={open() || clipped()}>
        <button
          type="button"
          class="btn ghost title-toggle"
          aria-expanded={open()}
          onClick={() => setOpen(!open())}
        >
          {open() ? ui.t('title.less') : ui.t('title.more')}
        </button>
      </Show>
    </>
  );
}

/** A whole-row tap target with a chevron: the row is the link. */
export function RowLink(props: { href: string; children: JSX.Element }) {
  return (
    <a class="row" href={props.href}>
      <span class="row-body">{props.children}</span>
      <Icon name="chevron" />
    </a>
  );
}

/** "Pair a machine", as a button-looking link (primary only where it is the next step). */
export function PairLink(props: { primary?: boolean }) {
  const { t } = useUi();
  return (
    <a class={props.primary ? 'btn primary' : 'btn'} href={routeHref({ name: 'pair' })}>
      <Icon name="link" />
      {t('inbox.pair')}
    </a>
  );
}

const PRESENCE_ICONS: Record<string, IconName> = {
  'link.connecting': 'sync',
  'link.offline': 'offline',
  'machine.online': 'ok',
};

export function Presence(props: { view: MachineView }) {
  const ui = useUi();
  const line = () => presenceOf(ui.state().links[props.view.relay], props.view, ui.state().network);
  return (
    <span class={`presence ${line().tone}`}>
      <Icon name={PRESENCE_ICONS[line().key] ?? 'machineOff'} />
      {ui.t(line().key, {
        time: line().since !== undefined ? ui.time(line().since!) : '',
        name: props.view.name,
      })}
    </span>
  );
}

/** Offline reading: what is on screen may be old, and says so. */
/** U1: when what is shown of this machine is not known to be current: since when it is (or null). */
export function useAsOf(view: () => MachineView): () => number | null {
  const ui = useUi();
  return () => {
    const v = view();
    const stale = presenceOf(ui.state().links[v.relay], v, ui.state().network).tone !== 'ok';
    return stale ? v.asOf : null;
  };
}

export function AsOf(props: { view: MachineView }) {
  const ui = useUi();
  const asOf = useAsOf(() => props.view);
  return (
    <Show when={asOf()}>
      {(at) => <p class="as-of">{ui.t('machine.asOf', { time: ui.time(at()) })}</p>}
    </Show>
  );
}

export function RepairBanner(props: { view: MachineView }) {
  const ui = useUi();
  return (
    <Show when={props.view.repairNeeded}>
      <div class="banner bad" role="alert">
        <p>{ui.t('machine.repairNeeded')}</p>
        <a class="btn" href={routeHref({ name: 'pair' })}>
          {ui.t('machine.repair')}
        </a>
      </div>
    </Show>
  );
}

/**
 * E9.9: this phone waits for the owner to let it in. Says where that is done and shows this
 * phone's key, so the owner compares it with the one on the approving screen or the desk.
 */
export function WaitingBanner(props: { view: MachineView }) {
  const ui = useUi();
  const entry = () => waitingEntry(props.view, ui.state().phones[props.view.roomId]?.phoneId);
  return (
    <Show when={entry()}>
      {(e) => (
        <div class="banner warn" role="status">
          <p>
            <strong>{ui.t('machine.waitTitle')}</strong>
          </p>
          <p>{ui.t('machine.waitBody', { name: e().name, machine: props.view.name })}</p>
          <Show when={e().fingerprint}>
            {(fp) => <p>{ui.t('machine.waitKey', { fingerprint: fp() })}</p>}
          </Show>
        </div>
      )}
    </Show>
  );
}

/**
 * E9.9: on a phone that may let them in, new phones asking to join this machine — seen where the
 * owner looks (inbox, machine screen), not only on Machine › Phones, with the rule for it.
 */
export function PhonesWaitingBanner(props: { view: MachineView }) {
  const ui = useUi();
  const waiting = () =>
    othersWaiting(props.view, ui.state().phones[props.view.roomId]?.phoneId).length;
  return (
    <Show when={waiting() > 0}>
      <div class="banner warn" role="status">
        <p>{ui.t('machine.phonesWaiting', { count: waiting(), machine: props.view.name })}</p>
        <a class="btn" href={routeHref({ name: 'phones', roomId: props.view.roomId })}>
          {ui.t('machine.reviewPhones')}
        </a>
      </div>
    </Show>
  );
}

export const STATE_ICONS: Record<string, IconName> = {
  idle: 'idle',
  running: 'running',
  awaiting_approval: 'waiting',
  done: 'ok',
  error: 'failed',
  stopped: 'stopped',
  ended: 'ended',
};

export function StateChip(props: { state: SessionState }) {
  const ui = useUi();
  const key = () => `state.${props.state}`;
  return (
    <span class={`chip state-${props.state}`}>
      <Icon name={STATE_ICONS[props.state] ?? 'warn'} />
      {hasKey(key()) ? ui.t(key() as 'state.idle') : props.state}
    </span>
  );
}

const ACTION_ICONS: Record<string, IconName> = { unconfirmed: 'waiting', expired: 'failed' };

export function ActionStatus(props: { entry: OutboxEntry | undefined }) {
  const ui = useUi();
  return (
    <Show when={props.entry}>
      {(entry) => (
        <span class={`badge ${entry().state}`} role="status">
          <Icon name={ACTION_ICONS[entry().state] ?? 'sent'} />
          {entry().state === 'sent'
            ? ui.t('card.sent')
            : entry().state === 'unconfirmed'
              ? // U4.offline: kept in the outbox, so it goes again once the link is back.
                ui.blocked(entry().roomId) !== null
                ? ui.t('card.unconfirmedAway')
                : ui.t('card.unconfirmed')
              : ui.t('card.expired')}
        </span>
      )}
    </Show>
  );
}

/**
 * U4.offline, one thing per button: why the action beside it is disabled now (this phone offline,
 * the relay or the machine away…), in the same words as the card's decision bar. Nothing is
 * queued while it shows (docs/app.md "Offline says one thing"); give the button
 * `aria-describedby={id}`.
 */
export function BlockedWhy(props: { roomId: string; id: string }) {
  const ui = useUi();
  return (
    <Show when={ui.blocked(props.roomId)}>
      {(code) => (
        <p class="why blocked-why" id={props.id}>
          {ui.t(`block.${code()}`)}
        </p>
      )}
    </Show>
  );
}

/** Why the last tap did not go through, read out at once; nothing while there is no message. */
export function ErrorAlert(props: { message: string | null }) {
  return (
    <Show when={props.message}>
      <p class="why" role="alert">
        {props.message}
      </p>
    </Show>
  );
}

/**
 * A one-tap action on a row (Stop, Revoke a rule): its button until the action is in the outbox,
 * then "<label> <Sent/Unconfirmed/Expired>" like a decision; below, why a tap was refused.
 */
export function OutboxAction(props: {
  entry: OutboxEntry | undefined;
  label: string;
  error: string | null;
  /** The button, shown while nothing is in the outbox. */
  children: JSX.Element;
}) {
  return (
    <>
      <Show when={props.entry} fallback={props.children}>
        {(e) => (
          <p class="chosen">
            {props.label} <ActionStatus entry={e()} />
          </p>
        )}
      </Show>
      <ErrorAlert message={props.error} />
    </>
  );
}

/** Relay error frames, shown on the screens of the machines behind that relay. */
export function RelayNotices(props: { relays: string[] }) {
  const ui = useUi();
  const notices = () =>
    props.relays
      .map((relay) => ({ relay, notice: ui.state().relayNotices[relay] }))
      .filter((n) => n.notice !== undefined);
  return (
    <For each={notices()}>
      {(n) => {
        const key = `relay.${n.notice!.code}`;
        return (
          <div class="banner warn" role="alert">
            <p>
              {hasKey(key)
                ? ui.t(key as 'relay.limit')
                : (n.notice!.message ?? ui.t('relay.unknown'))}
            </p>
            <button
              class="btn ghost"
              type="button"
              onClick={() => ui.client.dismissNotice(n.relay)}
            >
              {ui.t('relay.dismiss')}
            </button>
          </div>
        );
      }}
    </For>
  );
}

export function Section(props: { title: string; children: JSX.Element; live?: boolean }) {
  return (
    <section class="section" aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** A reason code rendered in the app's language; unknown codes fall back to the machine's words. */
export function reasonText(
  t: ReturnType<typeof useUi>['t'],
  reason: string | undefined,
  fallback: string | undefined,
): string {
  const key = `reason.${reason ?? ''}`;
  if (reason && hasKey(key)) return t(key as 'reason.not-pending');
  return fallback ?? '';
}
