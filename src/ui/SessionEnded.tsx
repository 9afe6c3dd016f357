import { draftKeys } from '../client/drafts.ts';
import type { MachineView } from '../client/machine-view.ts';
import { routeHref } from '../client/router.ts';
import { hasKey } from '../i18n/index.ts';
import { useUi } from './context.tsx';

/**
 * E11 / SC3: a session that can take no more messages says why at the top ("Ended — the machine
 * restarted") and offers to continue in a new session, carrying its first prompt and whatever
 * was typed in its reply box and never sent (the New-session prompt is a draft, drafts.ts).
 */
export function SessionEnded(props: { view: MachineView; sessionId: string; reason: string }) {
  const ui = useUi();
  const key = () =>
    hasKey(`session.ended.${props.reason}`)
      ? (`session.ended.${props.reason}` as 'session.ended.other')
      : 'session.ended.other';
  const carry = () => {
    const firstPrompt =
      props.view.transcripts[props.sessionId]?.entries.find((e) => e.role === 'user')?.text ??
      props.view.sessions[props.sessionId]?.title ??
      '';
    const unsent = ui.state().drafts[draftKeys.reply(props.view.roomId, props.sessionId)] ?? '';
    const text = [firstPrompt, unsent].filter((t) => t.trim() !== '').join('\n\n');
    if (text !== '') ui.client.setDraft(draftKeys.prompt(props.view.roomId), text);
  };
  return (
    <section class="banner warn session-ended" role="status" aria-labelledby="ended-title">
      <h2 id="ended-title" class="ended-title">
        {ui.t(key())}
      </h2>
      <p>{ui.t('session.endedHint')}</p>
      <a
        class="btn primary"
        href={routeHref({ name: 'new', roomId: props.view.roomId })}
        onClick={carry}
      >
        {ui.t('session.continue')}
      </a>
    </section>
  );
}
