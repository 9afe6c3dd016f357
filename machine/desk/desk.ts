import type { QuestionAnswer, QuestionItem } from '../../protocol/index.ts';
import type { MachineHandle } from '../machine.ts';
import {
  approvePhoneAtDesk,
  describePhones,
  forgetPhoneAtDesk,
  revokePhoneAtDesk,
} from './desk-phones.ts';
import type { Terminal } from './terminal.ts';
import { applyHooks, describePlan, planHooks, type HooksAction } from '../hooks/hooks-cli.ts';

// The desktop side: while the machine runs, the terminal shows approvals and questions as they
// arrive and accepts `allow <id>`, `deny <id>`, `answer <id> <option ids or text>`. Answers made
// here close the phone's card with `local`. Ids may be shortened to any unique prefix. All it
// prints goes through the terminal, which makes outside text safe (H5) and never breaks into the
// line being typed (U5).

/** What `help` prints (U5): the desk's own commands, not the command line's options. */
export const DESK_HELP = `Desk commands:
  list                               pending approvals and questions
  allow <id> | deny <id>             answer an approval here (the phone's card closes: local)
  answer <id> <option ids | text>    answer a question here; items separated by ';'
  sessions                           the sessions this machine holds (live, or kept from before)
  rules                              remembered approvals (E2): id, scope, key, uses
  revoke <ruleId>                    forget a remembered approval (the next request asks again)
  phones                             the phones of this machine (E6): id, state, fingerprint, name
  phones approve <phoneId>           let a waiting phone in (E9): compare its fingerprint first
  phones forget <phoneId>            drop a waiting or revoked phone's record (E9)
  revoke-phone <phoneId>             cut a lost phone off (E6): the others move to a new room
  hooks install|remove [--yes]       Claude Code sessions started in a terminal on the phone (E10):
                                     shows the change to Claude's settings; --yes writes it
  status                             the relay, phones, and what is pending
  help                               this list
Ids may be shortened to any unique prefix.`;

export type DeskCommand =
  | { kind: 'help' | 'list' | 'sessions' | 'status' | 'rules' | 'phones' }
  | {
      kind: 'allow' | 'deny' | 'revoke' | 'revoke-phone' | 'approve-phone' | 'forget-phone';
      id: string;
    }
  | { kind: 'answer'; id: string; text: string }
  | { kind: 'hooks'; action: HooksAction; yes: boolean };

export type DeskParse =
  | { ok: true; command: DeskCommand }
  | { ok: false; code: 'desk-unknown-command' | 'desk-missing-argument'; message: string };

export function parseDeskLine(line: string): DeskParse | null {
  const trimmed = line.trim();
  if (trimmed === '') return null;
  const [word = '', ...rest] = trimmed.split(/\s+/);
  const cmd = word.toLowerCase();
  const missing = (what: string): DeskParse => ({
    ok: false,
    code: 'desk-missing-argument',
    message: `${cmd}: ${what} (try: help)`,
  });
  switch (cmd) {
    case 'help':
    case 'list':
    case 'sessions':
    case 'status':
    case 'rules':
      return { ok: true, command: { kind: cmd } };
    case 'phones': {
      // E9: `phones approve <id>` / `phones forget <id>`.
      const sub = rest[0]?.toLowerCase();
      if (sub === undefined) return { ok: true, command: { kind: 'phones' } };
      if (sub !== 'approve' && sub !== 'forget') {
        return {
          ok: false,
          code: 'desk-unknown-command',
          message: `unknown command "phones ${rest[0]}" (try: help)`,
        };
      }
      return rest[1]
        ? { ok: true, command: { kind: `${sub}-phone`, id: rest[1] } }
        : missing(`which phone? phones ${sub} <phoneId> (see: phones)`);
    }
    case 'hooks': {
      const action = rest[0]?.toLowerCase();
      if (action !== 'install' && action !== 'remove')
        return missing('hooks install|remove [--yes]');
      return { ok: true, command: { kind: 'hooks', action, yes: rest[1] === '--yes' } };
    }
    case 'revoke-phone':
      return rest[0]
        ? { ok: true, command: { kind: cmd, id: rest[0] } }
        : missing('which phone? revoke-phone <phoneId> (see: phones)');
    case 'revoke':
      return rest[0]
        ? { ok: true, command: { kind: cmd, id: rest[0] } }
        : missing('which rule? revoke <ruleId> (see: rules)');
    case 'allow':
    case 'deny':
      return rest[0]
        ? { ok: true, command: { kind: cmd, id: rest[0] } }
        : missing('which approval? allow <id>');
    case 'answer': {
      if (!rest[0]) return missing('which question? answer <id> <option ids or text>');
      const text = trimmed.slice(trimmed.indexOf(rest[0]) + rest[0].length).trim();
      if (text === '') return missing('no answer given');
      return { ok: true, command: { kind: 'answer', id: rest[0], text } };
    }
    default:
      return {
        ok: false,
        code: 'desk-unknown-command',
        message: `unknown command "${word}" (try: help)`,
      };
  }
}

export function resolveId(
  prefix: string,
  ids: readonly string[],
  what = 'pending',
): { ok: true; id: string } | { ok: false; message: string } {
  const hits = ids.filter((id) => id.startsWith(prefix));
  if (hits.length === 1) return { ok: true, id: hits[0]! };
  if (hits.length === 0) return { ok: false, message: `nothing ${what} matches "${prefix}"` };
  return { ok: false, message: `"${prefix}" matches ${hits.length} ${what} ids; type more of it` };
}

/** E2: one line per remembered approval; `always` rules name their root, `session` ones theirs. */
export function describeRules(machine: MachineHandle): string[] {
  const rules = machine.rules();
  if (rules.length === 0) return ['no remembered approvals'];
  return rules.map(
    (r) =>
      `rule ${short(r.ruleId)}  ${r.scope.padEnd(7)} ${r.key}  (${r.uses} uses; ${r.scope === 'always' ? `under ${r.root}` : `session ${short(r.sessionId ?? '')}`})`,
  );
}

/**
 * One segment per item, separated by ';'. A segment whose words are all option ids (or labels)
 * picks those options; otherwise it is free text where the item allows it.
 */
export function parseAnswer(
  items: readonly QuestionItem[],
  text: string,
): { ok: true; answers: QuestionAnswer[] } | { ok: false; message: string } {
  const segments = items.length === 1 ? [text] : text.split(';').map((s) => s.trim());
  if (segments.length !== items.length)
    return {
      ok: false,
      message: `this question has ${items.length} items: separate the answers with ';'`,
    };
  const answers: QuestionAnswer[] = [];
  for (const [i, item] of items.entries()) {
    const seg = segments[i]!.trim();
    const words = seg.split(/[\s,]+/).filter((w) => w !== '');
    const ids = words.map(
      (w) => item.options.find((o) => o.id === w || o.label.toLowerCase() === w.toLowerCase())?.id,
    );
    if (
      words.length > 0 &&
      ids.every((x) => x !== undefined) &&
      (item.multiSelect || ids.length === 1)
    ) {
      answers.push({ itemId: item.id, optionIds: [...new Set(ids as string[])] });
    } else if (item.allowFreeText && seg !== '') {
      answers.push({ itemId: item.id, optionIds: [], freeText: seg });
    } else {
      const choices = item.options.map((o) => `${o.id}=${o.label}`).join(', ');
      return {
        ok: false,
        message: `"${item.prompt}": pick ${item.multiSelect ? 'one or more of' : 'one of'} ${choices}`,
      };
    }
  }
  return { ok: true, answers };
}

const short = (id: string) => id.slice(0, 8);

export function describePending(machine: MachineHandle): string[] {
  const lines: string[] = [];
  for (const a of machine.pendingApprovals())
    lines.push(`approval ${short(a.approvalId)}  ${a.title}: ${a.detail.split('\n')[0]}`);
  for (const q of machine.pendingQuestions()) {
    for (const item of q.items) {
      const opts = item.options.map((o) => `${o.id}=${o.label}`).join('  ');
      lines.push(
        `question ${short(q.questionId)}  ${item.prompt}  [${opts}${item.allowFreeText ? (opts ? '  or text' : 'text') : ''}]`,
      );
    }
  }
  return lines.length > 0 ? lines : ['nothing pending'];
}

export function describeStatus(machine: MachineHandle): string[] {
  const s = machine.status();
  const relay = s.connected
    ? 'connected'
    : `not connected (${s.consecutiveFailures} failed attempts${s.errorState ? ', retrying every 60 s' : ''})`;
  return [
    `relay: ${relay}`,
    `phone: ${s.phoneOnline ? 'online' : 'none online'}${s.rePairNeeded ? '  RE-PAIR NEEDED' : ''}`,
    `pending: ${machine.pendingApprovals().length} approvals, ${machine.pendingQuestions().length} questions`,
    `sessions: ${machine.sessions().filter((x) => x.live).length} live, ${machine.sessions().length} kept`,
  ];
}

/** E10: `hooks install|remove` shows the change to Claude Code's settings; `--yes` writes it. */
function hooksAtDesk(machine: MachineHandle, action: HooksAction, yes: boolean): string[] {
  if (machine.hookSocket === null) return ['hooks: this machine is not listening for hooks'];
  const planned = planHooks(action, machine.hookSocket);
  if (!planned.ok) return [`hooks: ${planned.message} [${planned.code}]`];
  const said = describePlan(action, planned.plan).split('\n');
  if (!planned.plan.changes) return said;
  if (!yes) return [...said, `write it with: hooks ${action} --yes`];
  const failed = applyHooks(planned.plan);
  return failed !== null
    ? [`hooks: ${failed}`]
    : [...said, `hooks: ${action === 'install' ? 'installed' : 'removed'}`];
}

/** Runs one typed line; returns what to print. */
export function runDeskLine(machine: MachineHandle, line: string): string[] {
  const parsed = parseDeskLine(line);
  if (parsed === null) return [];
  if (!parsed.ok) return [parsed.message];
  const c = parsed.command;
  switch (c.kind) {
    case 'help':
      return [DESK_HELP];
    case 'status':
      return describeStatus(machine);
    case 'list':
      return describePending(machine);
    case 'rules':
      return describeRules(machine);
    case 'phones':
      return describePhones(machine);
    case 'approve-phone':
    case 'forget-phone': {
      const candidates = machine
        .phones()
        .filter((p) =>
          c.kind === 'approve-phone' ? p.state === 'pending' : p.state !== 'approved',
        );
      const id = resolveId(
        c.id,
        candidates.map((p) => p.phoneId),
        c.kind === 'approve-phone' ? 'waiting phone' : 'waiting or revoked phone',
      );
      if (!id.ok) return [id.message];
      return c.kind === 'approve-phone'
        ? approvePhoneAtDesk(machine, id.id)
        : forgetPhoneAtDesk(machine, id.id);
    }
    case 'revoke-phone': {
      const active = machine.phones().filter((p) => !p.revoked);
      const id = resolveId(
        c.id,
        active.map((p) => p.phoneId),
        'active phone',
      );
      return id.ok ? revokePhoneAtDesk(machine, id.id) : [id.message];
    }
    case 'revoke': {
      const id = resolveId(
        c.id,
        machine.rules().map((r) => r.ruleId),
        'remembered',
      );
      if (!id.ok) return [id.message];
      const r = machine.revokeRule(id.id);
      return [r.ok ? `revoked rule ${short(id.id)} (the next such request asks again)` : r.message];
    }
    case 'sessions': {
      const s = machine.sessions();
      return s.length === 0
        ? ['no sessions']
        : s.map(
            (x) =>
              `${short(x.sessionId)}  ${x.state.padEnd(17)} ${x.live ? 'live' : 'gone'}  ${x.title}  (${x.cwd})`,
          );
    }
    case 'allow':
    case 'deny': {
      const id = resolveId(
        c.id,
        machine.pendingApprovals().map((a) => a.approvalId),
      );
      if (!id.ok) return [id.message];
      const r = machine.answerApproval(id.id, c.kind);
      return [
        r.ok
          ? `${c.kind === 'allow' ? 'allowed' : 'denied'} ${short(id.id)} here (the phone's card closes)`
          : r.message,
      ];
    }
    case 'hooks':
      return hooksAtDesk(machine, c.action, c.yes);
    case 'answer': {
      const id = resolveId(
        c.id,
        machine.pendingQuestions().map((q) => q.questionId),
      );
      if (!id.ok) return [id.message];
      const q = machine.pendingQuestions().find((x) => x.questionId === id.id)!;
      const answers = parseAnswer(q.items, c.text);
      if (!answers.ok) return [answers.message];
      const r = machine.answerQuestion(id.id, answers.answers);
      return [r.ok ? `answered ${short(id.id)} here (the phone's card closes)` : r.message];
    }
  }
}

/** Wires the desk to a terminal: arrivals are printed, typed lines are run. */
export function attachDesk(
  machine: MachineHandle,
  terminal: Terminal,
  o: { verbose: boolean },
): () => void {
  const print = (lines: string[]) => {
    for (const l of lines) terminal.print(l);
  };
  const off = machine.on({
    approvalOpened: (a) =>
      print([
        `▶ approval ${short(a.approvalId)}  ${a.title}: ${a.detail.split('\n')[0]}   (allow ${short(a.approvalId)} | deny ${short(a.approvalId)})`,
      ]),
    approvalClosed: (a, resolution) =>
      print([`  approval ${short(a.approvalId)} closed: ${resolution}`]),
    questionOpened: (q) =>
      print([
        `▶ question ${short(q.questionId)}`,
        ...describePending(machine)
          .filter((l) => l.includes(short(q.questionId)))
          .map((l) => '  ' + l),
        `  (answer ${short(q.questionId)} <option ids or text>)`,
      ]),
    questionClosed: (q, resolution) =>
      print([`  question ${short(q.questionId)} closed: ${resolution}`]),
    rePairNeeded: (needed) =>
      print([
        needed
          ? '!! RE-PAIR NEEDED: a phone sent a frame this pairing cannot open. Start with --re-pair and scan the new code.'
          : '   frames decrypt again',
      ]),
    relayError: (code, message) =>
      print([
        code.startsWith('push-')
          ? `  push: ${code}${message ? ` (${message})` : ''}`
          : `!! relay error ${code}: ${message}`,
      ]),
    // Failures are printed above as they come; the relay never confirms a success, and a push
    // that went out is not news unless asked for.
    pushReceipt: (r) => {
      if (r.outcome === 'sent' && o.verbose)
        print(['  push: sent (the relay reported no failure)']);
    },
  });
  terminal.start((line) => print(runDeskLine(machine, line)));
  return () => {
    off();
    terminal.close();
  };
}
