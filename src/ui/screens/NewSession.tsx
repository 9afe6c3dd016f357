import { For, Show, createEffect, createMemo, createSignal, untrack } from 'solid-js';
import { MAX_PROMPT_BYTES, MAX_PROMPT_CHARS } from '../../../protocol/index.ts';
import { draftKeys } from '../../client/drafts.ts';
import { countText } from '../../client/text-count.ts';
import { ConnectionBanner } from '../ConnectionBanner.tsx';
import { useUi } from '../context.tsx';
import { TextCounter } from '../TextCounter.tsx';
import { ErrorAlert, Header, RelayNotices, reasonText } from '../widgets.tsx';

// Dispatch. Full access is offered only when the machine advertises it, behind a toggle that is
// off by default, an explicit warning and a typed confirmation (spec v1.2: three gates).
export default function NewSession(props: { roomId?: string }) {
  const ui = useUi();
  const machines = () => ui.state().machines;
  const [roomId, setRoomId] = createSignal(
    untrack(() => props.roomId ?? machines()[0]?.roomId ?? ''),
  );
  const view = () => machines().find((m) => m.roomId === roomId());
  const roots = () => view()?.status?.allowedRoots;
  const [cwd, setCwd] = createSignal('');
  const [worktree, setWorktree] = createSignal(false);
  // E10: offered only when the machine announces more than one agent; its first is the default.
  const agents = () => view()?.status?.capabilities?.agents ?? [];
  const [agent, setAgent] = createSignal('');
  const chosenAgent = () => (agents().includes(agent()) ? agent() : undefined);
  // U2: the prompt is a draft per machine, kept on this phone until the machine accepted it.
  const draftKey = () => draftKeys.prompt(roomId());
  const prompt = () => ui.state().drafts[draftKey()] ?? '';
  const setPrompt = (text: string) => ui.client.setDraft(draftKey(), text);
  // Switching machine takes the typed prompt along, unless that machine has a draft of its own
  // (which is then shown; the one left behind stays saved under its machine).
  const switchMachine = (next: string) => {
    const text = prompt();
    const target = ui.state().drafts[draftKeys.prompt(next)] ?? '';
    if (text !== '' && target === '') {
      ui.client.setDraft(draftKeys.prompt(next), text);
      setPrompt('');
    }
    setRoomId(next);
  };
  const [full, setFull] = createSignal(false);
  const [confirmWord, setConfirmWord] = createSignal('');
  const [requestId, setRequestId] = createSignal<string | null>(null);
  const [error, setError] = createSignal<string | null>(null);
  const [sentAt, setSentAt] = createSignal(0);

  createEffect(() => {
    const r = roots();
    if (r && r.length > 0 && !r.includes(cwd())) setCwd(r[0]!);
  });
  createEffect(() => {
    if (!props.roomId && !roomId() && machines()[0]) setRoomId(machines()[0]!.roomId);
  });

  const count = createMemo(() => countText(prompt(), MAX_PROMPT_CHARS, MAX_PROMPT_BYTES));
  const tooLong = () => count().over;
  const fullOffered = () => view()?.status?.capabilities?.fullAccessDispatch === true;
  const dispatchOff = () => roots() !== undefined && roots()!.length === 0;
  const fullConfirmed = () => !full() || confirmWord().trim() === ui.t('new.fullAccessWord');
  const blocked = () => (roomId() ? ui.blocked(roomId()) : 'unknown-machine');
  const result = () => {
    const id = requestId();
    return id ? view()?.dispatchResults[id] : undefined;
  };
  const pending = () => requestId() !== null && !result();
  const canSubmit = () =>
    !!view() &&
    !dispatchOff() &&
    prompt().trim() !== '' &&
    !tooLong() &&
    // A folder must be chosen from allowedRoots; in free-text mode (field absent) it is optional.
    (roots() === undefined || cwd().trim() !== '') &&
    fullConfirmed() &&
    blocked() === null &&
    !pending();

  createEffect(() => {
    const r = result();
    if (r?.ok && r.sessionId && !r.note)
      ui.go({ name: 'session', roomId: roomId(), sessionId: r.sessionId });
  });

  const submit = async (ev: Event) => {
    ev.preventDefault();
    if (!canSubmit()) return;
    setError(null);
    setSentAt(Date.now());
    const folder = cwd().trim();
    const sent = await ui.client.dispatch(roomId(), {
      prompt: prompt(),
      worktree: worktree(),
      ...(folder !== '' ? { cwd: folder } : {}),
      ...(full() && fullOffered() ? { access: 'full' as const } : {}),
      ...(agents().length > 1 && chosenAgent() !== undefined ? { agent: chosenAgent()! } : {}),
    });
    if (sent.ok) setRequestId(sent.requestId);
    else setError(ui.t(`block.${sent.code}`));
  };
  const relayNoticeSinceSend = () => {
    const v = view();
    const n = v ? ui.state().relayNotices[v.relay] : undefined;
    return n && sentAt() > 0 && n.at >= sentAt() ? n : undefined;
  };

  return (
    <>
      <Header
        title={ui.t('new.title')}
        back={props.roomId ? { name: 'machine', roomId: props.roomId } : { name: 'inbox' }}
      />
      <main class="page">
        <Show when={machines().length > 0} fallback={<p class="empty">{ui.t('new.noMachine')}</p>}>
          <Show when={view()}>{(v) => <ConnectionBanner views={[v()]} machines />}</Show>
          <Show when={relayNoticeSinceSend()}>
            <RelayNotices relays={[view()!.relay]} />
          </Show>
          <form class="form" onSubmit={(ev) => void submit(ev)}>
            <label class="field">
              <span>{ui.t('new.machine')}</span>
              <select value={roomId()} onChange={(ev) => switchMachine(ev.currentTarget.value)}>
                <For each={machines()}>{(m) => <option value={m.roomId}>{m.name}</option>}</For>
              </select>
            </label>
            <Show
              when={roots() !== undefined}
              fallback={
                <label class="field">
                  <span>{ui.t('new.cwdFree')}</span>
                  <input
                    type="text"
                    value={cwd()}
                    onInput={(ev) => setCwd(ev.currentTarget.value)}
                    autocomplete="off"
                  />
                </label>
              }
            >
              <Show
                when={!dispatchOff()}
                fallback={<p class="banner warn">{ui.t('new.cwdDisabled')}</p>}
              >
                <label class="field">
                  <span>{ui.t('new.cwd')}</span>
                  <select value={cwd()} onChange={(ev) => setCwd(ev.currentTarget.value)}>
                    <For each={roots()}>{(r) => <option value={r}>{r}</option>}</For>
                  </select>
                </label>
              </Show>
            </Show>
            <Show when={agents().length > 1}>
              <label class="field">
                <span>{ui.t('new.agent')}</span>
                <select
                  value={chosenAgent() ?? agents()[0]}
                  onChange={(ev) => setAgent(ev.currentTarget.value)}
                >
                  <For each={agents()}>{(a) => <option value={a}>{a}</option>}</For>
                </select>
              </label>
            </Show>
            <label class="check">
              <input
                type="checkbox"
                checked={worktree()}
                onChange={(ev) => setWorktree(ev.currentTarget.checked)}
              />
              <span>{ui.t('new.worktree')}</span>
            </label>
            <label class="field">
              <span>{ui.t('new.prompt')}</span>
              <textarea
                rows="6"
                value={prompt()}
                onInput={(ev) => setPrompt(ev.currentTarget.value)}
                placeholder={ui.t('new.example')}
                aria-describedby="prompt-example prompt-counter"
              />
              <span class="covers" id="prompt-example">
                {ui.t('new.exampleHint')}
              </span>
            </label>
            <TextCounter id="prompt-counter" count={count()} tooLong={ui.t('new.tooLong')} />
            <Show
              when={fullOffered()}
              fallback={<p class="hint">{ui.t('new.fullAccessUnavailable')}</p>}
            >
              <label class="check danger">
                <input
                  type="checkbox"
                  checked={full()}
                  onChange={(ev) => setFull(ev.currentTarget.checked)}
                />
                <span>{ui.t('new.fullAccess')}</span>
              </label>
              <Show when={full()}>
                <div class="banner bad" role="alert">
                  <p>{ui.t('new.fullAccessWarning')}</p>
                  <label class="field">
                    <span>
                      {ui.t('new.fullAccessConfirmLabel', { word: ui.t('new.fullAccessWord') })}
                    </span>
                    <input
                      type="text"
                      value={confirmWord()}
                      onInput={(ev) => setConfirmWord(ev.currentTarget.value)}
                      autocomplete="off"
                    />
                  </label>
                </div>
              </Show>
            </Show>
            <button type="submit" class="btn primary" disabled={!canSubmit()}>
              {ui.t('new.submit')}
            </button>
            <Show when={blocked()}>{(code) => <p class="why">{ui.t(`block.${code()}`)}</p>}</Show>
            <ErrorAlert message={error()} />
            <Show when={pending()}>
              <p class="hint" role="status">
                {ui.t('new.waiting')}
              </p>
            </Show>
            <Show when={result()}>
              {(r) => (
                <div role="status">
                  <Show
                    when={r().ok}
                    fallback={
                      <p class="banner bad">
                        {ui.t('new.failed', { message: reasonText(ui.t, r().reason, r().error) })}
                      </p>
                    }
                  >
                    <Show when={r().note}>
                      <p class="banner info">
                        {ui.t('new.note', { message: reasonText(ui.t, r().reason, r().note) })}
                      </p>
                    </Show>
                    <Show when={r().sessionId}>
                      <a
                        class="btn primary"
                        href={`#/m/${encodeURIComponent(roomId())}/s/${encodeURIComponent(r().sessionId!)}`}
                      >
                        {ui.t('new.openSession')}
                      </a>
                    </Show>
                  </Show>
                </div>
              )}
            </Show>
          </form>
        </Show>
      </main>
    </>
  );
}
