import { Show, createEffect, createMemo, createSignal } from 'solid-js';
import type { RuleEntry } from '../../../protocol/index.ts';
import { extensionsOf } from '../../client/extensions.ts';
import { ByKey } from '../ByKey.tsx';
import { useUi } from '../context.tsx';
import { BlockedWhy, OutboxAction } from '../widgets.tsx';
import { MachineSubScreen } from './MachineSubScreen.tsx';

// E2: Machine › Rules — every remembered approval of one machine, with its uses and a Revoke
// button. Asked for (rules.get) when the screen opens and whenever the machine comes back; the
// machine also sends the list after every change, so a revoke shows by the rule leaving the list.
export default function Rules(props: { roomId: string }) {
  const ui = useUi();
  const view = () => ui.state().machines.find((m) => m.roomId === props.roomId);
  const supported = () => {
    const v = view();
    return v !== undefined && extensionsOf(v).approvalRules;
  };
  const online = () => ui.blocked(props.roomId) === null;
  // A memo changes only on a real change, so rules.get goes out once per (re)connection.
  const canAsk = createMemo(() => supported() && online());
  createEffect(() => {
    if (canAsk()) ui.client.getRules(props.roomId);
  });
  return (
    <MachineSubScreen
      roomId={props.roomId}
      title={ui.t('rules.title')}
      heading={ui.t('rules.link')}
    >
      {(v) => (
        <Show when={supported()} fallback={<p class="empty">{ui.t('rules.unsupported')}</p>}>
          <p class="hint">{ui.t('rules.intro')}</p>
          <Show
            when={v().rules}
            fallback={
              <p class="empty">{online() ? ui.t('rules.loading') : ui.t('rules.offline')}</p>
            }
          >
            {(rules) => (
              <Show when={rules().length > 0} fallback={<p class="empty">{ui.t('rules.empty')}</p>}>
                <ul class="list rules" aria-label={ui.t('rules.title')}>
                  <ByKey each={rules()} key={(rule) => rule.ruleId}>
                    {(rule) => <RuleRow roomId={props.roomId} rule={rule()} />}
                  </ByKey>
                </ul>
              </Show>
            )}
          </Show>
        </Show>
      )}
    </MachineSubScreen>
  );
}

function RuleRow(props: { roomId: string; rule: RuleEntry }) {
  const ui = useUi();
  const [error, setError] = createSignal<string | null>(null);
  const entry = () =>
    ui
      .state()
      .outbox.find(
        (e) => e.kind === 'rule' && e.roomId === props.roomId && e.targetId === props.rule.ruleId,
      );
  const revoke = async () => {
    setError(null);
    const result = await ui.client.revokeRule(props.roomId, props.rule.ruleId);
    if (!result.ok) setError(ui.t(`block.${result.code}`));
  };
  return (
    <li class="rule">
      <p class="rule-key">
        <code>{props.rule.key}</code>
      </p>
      <p class="row-sub">
        {props.rule.scope === 'session'
          ? ui.t('rules.scopeSession')
          : props.rule.root
            ? ui.t('rules.scopeAlways', { root: props.rule.root })
            : ui.t('rules.scopeAlwaysNoRoot')}
        {' · '}
        {props.rule.uses === 0
          ? ui.t('rules.usesNone')
          : props.rule.uses === 1
            ? ui.t('rules.usesOne')
            : ui.t('rules.uses', { count: props.rule.uses })}
        {' · '}
        {ui.t('rules.since', { time: ui.time(props.rule.createdAt) })}
      </p>
      <OutboxAction entry={entry()} label={ui.t('rules.revoking')} error={error()}>
        <button
          type="button"
          class="btn deny"
          disabled={ui.blocked(props.roomId) !== null}
          aria-label={ui.t('rules.revokeNamed', { key: props.rule.key })}
          aria-describedby={`rule-why-${props.rule.ruleId}`}
          onClick={() => void revoke()}
        >
          {ui.t('rules.revoke')}
        </button>
        <BlockedWhy roomId={props.roomId} id={`rule-why-${props.rule.ruleId}`} />
      </OutboxAction>
    </li>
  );
}
