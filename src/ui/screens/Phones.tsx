import { Show, createSignal } from 'solid-js';
import type { PhoneEntry } from '../../../protocol/index.ts';
import { phoneRows } from '../../client/phone-list.ts';
import { phonesOffered } from '../../client/phones.ts';
import { ByKey } from '../ByKey.tsx';
import { useUi } from '../context.tsx';
import { BlockedWhy, ErrorAlert } from '../widgets.tsx';
import { MachineSubScreen } from './MachineSubScreen.tsx';

// E6: Machine › Phones — every phone the machine knows, this one marked; Revoke asks the owner
// to type the phone's name first (a revoke cannot be undone: that phone must be paired again).
// The machine sends the list after every change, so a revoke shows by the row turning Revoked.
// SC7: this phone first, then phones waiting for the owner, then by last seen (phone-list.ts);
// every row says when the machine last saw it, and phones sharing a name say when each was paired.
export default function Phones(props: { roomId: string }) {
  const ui = useUi();
  // E9: a pairing whose code carried no machine key gets no identity features.
  const needsProtection = (roomId: string) => ui.client.needsProtection(roomId);
  const me = () => ui.state().phones[props.roomId];
  const online = () => ui.blocked(props.roomId) === null;
  return (
    <MachineSubScreen
      roomId={props.roomId}
      title={ui.t('phones.title')}
      heading={ui.t('phones.link')}
    >
      {(v) => (
        <Show
          when={phonesOffered(v())}
          fallback={<p class="empty">{ui.t('phones.unsupported')}</p>}
        >
          <p class="hint">{ui.t('phones.intro')}</p>
          <Show when={needsProtection(props.roomId)}>
            <p class="why protect-hint" role="alert">
              {ui.t('phones.protect')}
            </p>
          </Show>
          <Show
            when={v().phones}
            fallback={
              <p class="empty">{online() ? ui.t('phones.loading') : ui.t('phones.offline')}</p>
            }
          >
            {(phones) => (
              <ul class="list phones" aria-label={ui.t('phones.title')}>
                <ByKey each={phoneRows(phones(), me()?.phoneId)} key={(row) => row.phone.phoneId}>
                  {(row) => (
                    <PhoneRow
                      roomId={props.roomId}
                      machine={v().name}
                      phone={row().phone}
                      mine={row().mine}
                      sameName={row().sameName}
                    />
                  )}
                </ByKey>
              </ul>
            )}
          </Show>
        </Show>
      )}
    </MachineSubScreen>
  );
}

function PhoneRow(props: {
  roomId: string;
  machine: string;
  phone: PhoneEntry;
  mine: boolean;
  /** Another phone has this name (every browser of one model starts as "Pixel 7 · Chrome"). */
  sameName: boolean;
}) {
  const ui = useUi();
  const [confirming, setConfirming] = createSignal(false);
  const [typed, setTyped] = createSignal('');
  const [sent, setSent] = createSignal(false);
  const [error, setError] = createSignal<string | null>(null);
  const matches = () => typed().trim() === props.phone.name.trim();
  const inputId = () => `revoke-${props.phone.phoneId}`;
  const shortId = () => props.phone.phoneId.slice(0, 6);
  const revoke = () => {
    setError(null);
    if (!matches()) return;
    void ui.client.revokePhone(props.roomId, props.phone.phoneId).then((sentOk) => {
      if (sentOk) {
        setSent(true);
        setConfirming(false);
      } else setError(ui.t('phones.notSent'));
    });
  };
  return (
    <li class="phone" data-phone-id={props.phone.phoneId}>
      <p class="row-title">
        {props.phone.name}
        <Show when={props.mine}>
          {' '}
          <span class="tag">{ui.t('phones.thisPhone')}</span>
        </Show>
      </p>
      <p class="row-sub">
        {/* Each part one flex item, its separator kept with it (no gap before a "·"). */}
        <Show when={props.phone.revoked}>
          <span>
            <strong>{ui.t('phones.revoked')}</strong> ·
          </span>
        </Show>
        <Show when={!props.phone.revoked && props.phone.state === 'pending'}>
          <span>
            <strong>{ui.t('phones.pending')}</strong> ·
          </span>
        </Show>
        <span>
          {ui.t('phones.lastSeen', { time: ui.when(props.phone.lastSeen) })}
          <Show when={props.phone.presence}> ·</Show>
        </span>
        <Show when={props.phone.presence}>
          <span>{ui.t('phones.presenceOn')}</span>
        </Show>
      </p>
      <Show when={props.sameName}>
        <p class="row-sub phone-apart">
          {ui.t('phones.paired', { time: ui.when(props.phone.firstSeen) })}
          {' · '}
          {ui.t('phones.shortId', { id: shortId() })}
        </p>
      </Show>
      <Show when={props.phone.fingerprint}>
        {(fp) => <p class="row-sub">{ui.t('phones.fingerprint', { fingerprint: fp() })}</p>}
      </Show>
      {/* E6.9: this phone's name is edited on its own row, from this phone only. */}
      <Show when={props.mine && !props.phone.revoked && ui.state().phones[props.roomId]}>
        {(m) => <RenameThisPhone roomId={props.roomId} name={m().name} />}
      </Show>
      <Show when={props.phone.state === 'pending' && !props.mine}>
        <ApprovePhone roomId={props.roomId} phone={props.phone} />
      </Show>
      <Show when={!props.phone.revoked && !props.mine}>
        <Show
          when={!sent()}
          fallback={
            <p class="chosen" role="status">
              {ui.t('phones.revoking')}
            </p>
          }
        >
          <Show
            when={confirming()}
            fallback={
              <button
                type="button"
                class="btn deny"
                disabled={ui.blocked(props.roomId) !== null}
                aria-describedby={`phone-why-${props.phone.phoneId}`}
                aria-label={ui.t('phones.revokeNamed', {
                  name: props.sameName
                    ? `${props.phone.name} (${ui.t('phones.shortId', { id: shortId() })})`
                    : props.phone.name,
                })}
                onClick={() => setConfirming(true)}
              >
                {ui.t('phones.revoke')}
              </button>
            }
          >
            <form
              class="revoke-confirm"
              onSubmit={(ev) => {
                ev.preventDefault();
                revoke();
              }}
            >
              <p class="hint">
                {ui.t('phones.confirmHint', { name: props.phone.name, machine: props.machine })}
              </p>
              <label class="field" for={inputId()}>
                {ui.t('phones.confirmLabel', { name: props.phone.name })}
              </label>
              <input
                id={inputId()}
                class="field-input"
                autocomplete="off"
                value={typed()}
                onInput={(ev) => setTyped(ev.currentTarget.value)}
              />
              <div class="actions">
                <button type="submit" class="btn deny" disabled={!matches()}>
                  {ui.t('phones.confirm')}
                </button>
                <button type="button" class="btn" onClick={() => setConfirming(false)}>
                  {ui.t('phones.cancel')}
                </button>
              </div>
            </form>
          </Show>
        </Show>
      </Show>
      <Show when={!props.phone.revoked && !props.mine}>
        <BlockedWhy roomId={props.roomId} id={`phone-why-${props.phone.phoneId}`} />
      </Show>
      <ErrorAlert message={error()} />
    </li>
  );
}

/** E9: lets a waiting phone in; under a presence policy the owner's fingerprint / face signs it. */
function ApprovePhone(props: { roomId: string; phone: PhoneEntry }) {
  const ui = useUi();
  const [sent, setSent] = createSignal(false);
  const [error, setError] = createSignal<string | null>(null);
  const approve = async () => {
    setError(null);
    if (await ui.client.approvePhone(props.roomId, props.phone.phoneId)) setSent(true);
    else setError(ui.t('phones.notSent'));
  };
  return (
    <Show
      when={!sent()}
      fallback={
        <p class="chosen" role="status">
          {ui.t('phones.approving')}
        </p>
      }
    >
      {/* SC7: Approve stands apart from the row's Revoke (16 px at least, every text size). */}
      <div class="approve-phone">
        <p class="hint">{ui.t('phones.approveHint')}</p>
        <div class="actions">
          <button
            type="button"
            class="btn allow"
            disabled={ui.blocked(props.roomId) !== null}
            aria-describedby={`phone-why-${props.phone.phoneId}`}
            aria-label={ui.t('phones.approveNamed', { name: props.phone.name })}
            onClick={() => void approve()}
          >
            {ui.t('phones.approve')}
          </button>
        </div>
        <ErrorAlert message={error()} />
      </div>
    </Show>
  );
}

function RenameThisPhone(props: { roomId: string; name: string }) {
  const ui = useUi();
  // Starts from the stored name; what the owner types is theirs until saved.
  // eslint-disable-next-line solid/reactivity
  const [name, setName] = createSignal(props.name);
  const [invalid, setInvalid] = createSignal(false);
  const save = async () => setInvalid(!(await ui.client.renamePhone(props.roomId, name())));
  return (
    <form
      class="rename-phone"
      onSubmit={(ev) => {
        ev.preventDefault();
        void save();
      }}
    >
      <label class="field">
        {ui.t('phones.nameLabel')}
        <input
          aria-describedby="phone-name-hint"
          value={name()}
          maxLength={64}
          autocomplete="off"
          onInput={(ev) => setName(ev.currentTarget.value)}
        />
      </label>
      <p class="hint" id="phone-name-hint">
        {ui.t('phones.nameHint')}
      </p>
      <Show when={invalid()}>
        <p class="why" role="alert">
          {ui.t('phones.nameInvalid')}
        </p>
      </Show>
      <button type="submit" class="btn" disabled={name().trim() === props.name}>
        {ui.t('phones.save')}
      </button>
    </form>
  );
}
