import { randomUUID } from 'node:crypto';
import {
  ACTIVITY_COALESCE_MS,
  clampText,
  encodeBoxKey,
  isMember,
  MAX_MACHINE_NAME_CHARS,
  open,
  PHONE_MESSAGE_TYPES,
  parsePhoneMessage,
  STATUS_INTERVAL_MS,
  type CompactPushFields,
  type MachineMessage,
  type RuleEntry,
} from '../protocol/index.ts';
import { makeUpdateScheduler } from './activity.ts';
import type { Core } from './core.ts';
import { resolveRoots } from './cwd-guard.ts';
import { makeLocalToolHost } from './local-tool-host.ts';
import { consoleLog } from './log.ts';
import {
  MachineStartError,
  type MachineEvents,
  type MachineHandle,
  type MachineOptions,
} from './machine-types.ts';
import { checkAnswers, makePending, type OpenQuestion } from './pending.ts';
import { loadOrCreateBoxKey } from './box-key.ts';
import { clampApprovalTitle, clampDetail, clampItems } from './outbound.ts';
import { makePhoneActions } from './phone-actions.ts';
import { makePhoneIdentity } from './phone-identity.ts';
import { makePhones, toEntry } from './phones.ts';
import { makePresenceGate } from './presence-gate.ts';
import { pushFor } from './push-hints.ts';
import { makePushReceipts } from './push-receipts.ts';
import type { RelayLinkEvents } from './relay-link.ts';
import { makeRooms } from './rooms.ts';
import { makeRules } from './rules.ts';
import { makeSeenRequests } from './seen-requests.ts';
import { makeSessionStore, toWireSession } from './sessions.ts';
import { snapshotMessages } from './snapshot.ts';
import { openStore } from './store.ts';
import { makeTranscripts } from './transcript.ts';
import { realTimers, type TimerHandle } from './timers.ts';
import type { ToolHost, ToolHostProvider } from './tool-host.ts';
import { makeTurns } from './turns.ts';

export { MachineStartError } from './machine-types.ts';
export type {
  MachineEvents,
  MachineHandle,
  MachineOptions,
  MachineStatusView,
  LocalResult,
} from './machine-types.ts';

export const PLUGIN_VERSION = 'mock-machine/0.1.0';
/** Frames kept while the relay is away (sent after hello-ok); state is re-sent anyway. */
export const MAX_OUTBOX_FRAMES = 200;
/** On shutdown, how long running turns get to stop their tools and write their last state. */
export const SHUTDOWN_GRACE_MS = 5000;

export async function createMachine(options: MachineOptions): Promise<MachineHandle> {
  const log = options.log ?? consoleLog;
  const timers = options.timers ?? realTimers();
  const roots = resolveRoots(options.roots);
  if (!roots.ok) throw new MachineStartError(roots.code, roots.message);
  const allowedRoots = roots.roots;
  const name = clampText(
    options.name.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim() || 'machine',
    { chars: MAX_MACHINE_NAME_CHARS },
  ).text;
  // E6: the key pair phones pin; made before anything joins a room.
  const boxKeyPair = loadOrCreateBoxKey(options.stateDir);
  if (options.rePair)
    log('warn', 're-paired', 'new pairing secret: phones paired before must scan the new code');

  const listeners = new Set<MachineEvents>();
  const fire = <K extends keyof MachineEvents>(
    k: K,
    ...args: Parameters<NonNullable<MachineEvents[K]>>
  ) => {
    for (const l of listeners) (l[k] as ((...a: unknown[]) => void) | undefined)?.(...args);
  };

  /**
   * Frames kept while the relay is away; `push` marks those carrying a push hint. A frame sealed
   * for a room the machine has left (E6) is sealed again for the current one when it goes out.
   */
  const outbox: {
    frame: string;
    push: CompactPushFields | undefined;
    message: MachineMessage;
    roomId: string;
  }[] = [];
  let phoneOnline = false;
  let rePairNeeded = false;
  let closing = false;
  const localHost: ToolHost = makeLocalToolHost({
    roots: allowedRoots.length > 0 ? allowedRoots : [],
  });
  const hostProvider: ToolHostProvider = options.toolHost ?? (() => localHost);
  // U5/H3: sessions, transcripts and seen requestIds live in the state dir's store.
  const store = openStore(options.stateDir, {
    log,
    ...(options.storeMaxPages !== undefined ? { maxPages: options.storeMaxPages } : {}),
  });
  const sessions = makeSessionStore({
    store,
    transcripts: makeTranscripts(store),
    now: () => timers.now(),
  });
  const seen = makeSeenRequests(store, { now: () => timers.now() });
  /** E1: a new id for every process start, so a phone can tell a restart from a reconnect. */
  const instance = randomUUID();

  // send() reports every push hint that leaves to it; a change goes to an online phone at once.
  const receipts = makePushReceipts({
    timers,
    ...(options.pushAnswerWindowMs !== undefined ? { windowMs: options.pushAnswerWindowMs } : {}),
    onChange(receipt) {
      // A phone that is away gets the receipt in the status sent when it joins.
      if (phoneOnline) send(status());
      fire('pushReceipt', receipt);
    },
  });

  function send(message: MachineMessage): void {
    // Nobody can receive a session update while no phone is online, and a phone that joins gets
    // the snapshot; sending them anyway would only spend the relay's rate limit.
    // The same for `rules` (E2): a phone that joins asks with rules.get.
    if (!phoneOnline && (message.type === 'session.update' || message.type === 'rules')) return;
    const push = phoneOnline ? undefined : pushFor(message, (id) => sessions.get(id)?.title);
    const room = rooms.current();
    const frame = room.sealer.frame(message, push);
    if (frame === null) {
      log('error', 'frame-too-large', `${message.type} does not fit the 16 KiB envelope; not sent`);
      return;
    }
    options.onSend?.(message, push, frame);
    if (room.link.send(frame)) {
      if (push !== undefined) receipts.hintSent();
    } else {
      // State (status, snapshot, updates) is re-sent on reconnect; results and closes are kept.
      if (
        message.type !== 'machine.status' &&
        message.type !== 'session.update' &&
        message.type !== 'rules' &&
        message.type !== 'session.snapshot'
      ) {
        outbox.push({ frame, push, message, roomId: room.roomId });
        if (outbox.length > MAX_OUTBOX_FRAMES) outbox.shift();
      }
    }
  }

  const questionRequest = (q: OpenQuestion): MachineMessage => ({
    v: 1,
    type: 'question.request',
    ts: timers.now(),
    questionId: q.questionId,
    sessionId: q.sessionId,
    items: [...q.items],
    createdAt: q.createdAt,
    expiresAt: q.expiresAt,
  });

  const phones = makePhones(store, () => timers.now());
  const presence = makePresenceGate({
    policy: options.requirePresence ?? 'none',
    phones,
    log,
  });
  const pending = makePending({
    timers,
    needsPresence: presence.approvalNeedsPresence,
    ...(options.approvalTimeoutMs !== undefined
      ? { approvalTimeoutMs: options.approvalTimeoutMs }
      : {}),
    ...(options.questionTimeoutMs !== undefined
      ? { questionTimeoutMs: options.questionTimeoutMs }
      : {}),
    events: {
      approvalOpened(a) {
        send({ v: 1, type: 'approval.request', ts: timers.now(), ...a });
        fire('approvalOpened', a);
      },
      approvalClosed(a, o) {
        // A phone decision's approval.closed is the phone action's own (cached) result.
        if (o.resolution !== 'allow' && o.resolution !== 'deny') {
          send({
            v: 1,
            type: 'approval.closed',
            ts: timers.now(),
            approvalId: a.approvalId,
            resolution: o.resolution,
          });
        }
        fire('approvalClosed', a, o.resolution);
      },
      questionOpened(q) {
        send(questionRequest(q));
        fire('questionOpened', q);
      },
      questionClosed(q, resolution) {
        if (resolution !== 'phone')
          send({
            v: 1,
            type: 'question.closed',
            ts: timers.now(),
            questionId: q.questionId,
            resolution,
          });
        fire('questionClosed', q, resolution);
      },
    },
  });

  const scheduler = makeUpdateScheduler({
    coalesceMs: ACTIVITY_COALESCE_MS,
    timers,
    emit: (id) => {
      const s = sessions.get(id);
      if (s === undefined) return;
      // What the phone is told is what a restart finds.
      sessions.save(s);
      send({ v: 1, type: 'session.update', ts: timers.now(), session: toWireSession(s) });
    },
  });

  const rulesMessage = (list: RuleEntry[]): MachineMessage => ({
    v: 1,
    type: 'rules',
    ts: timers.now(),
    rules: list,
  });
  const rules = makeRules({
    store,
    now: () => timers.now(),
    // The reply to rules.get carries a requestId too: leave room for one.
    fits: (list) =>
      rooms.current().sealer.frame({
        ...rulesMessage(list),
        requestId: randomUUID(),
      } as MachineMessage) !== null,
  });
  const rulesChanged = () => send(rulesMessage(rules.list()));

  const core: Core = {
    timers,
    log,
    sessions,
    pending,
    scheduler,
    send,
    host: hostProvider,
    roots: allowedRoots,
    rules,
    rulesChanged,
    decidedBy: (phoneId) => identity.by(phoneId),
    presence,
  };
  const turns = makeTurns(core);
  const identity = makePhoneIdentity({
    core,
    phones,
    rooms: () => rooms,
    boxKeyPair,
    relay: options.relay,
    machineName: name,
  });

  const status = (): MachineMessage => {
    const pushReceipt = receipts.current();
    return {
      v: 1,
      type: 'machine.status',
      ts: timers.now(),
      machine: name,
      pluginVersion: PLUGIN_VERSION,
      allowedRoots: [...allowedRoots],
      capabilities: {
        fullAccessDispatch: options.allowFullAccess ?? false,
        questionForwarding: true,
        approvalRules: true,
        approvalEdit: true,
        interrupt: true,
        phones: true,
        ...(presence.requirement ? { presence: presence.requirement } : {}),
      },
      ...(pushReceipt ? { pushReceipt } : {}),
      instance,
      boxKey: encodeBoxKey(boxKeyPair.publicKey),
    };
  };

  function sendSnapshotAndRemind(): void {
    // E1: the ids pending right now; the phone closes every other card of this machine.
    const open = {
      approvals: pending.openApprovals().map((a) => a.approvalId),
      questions: pending.openQuestions().map((q) => q.questionId),
    };
    for (const m of snapshotMessages(
      sessions.list().map(toWireSession),
      open,
      timers.now(),
      (m) => rooms.current().sealer.frame(m) !== null,
    ))
      send(m);
    // D8: re-remind every open approval and question; the phone dedupes by id.
    for (const a of pending.openApprovals())
      send({ v: 1, type: 'approval.request', ts: timers.now(), ...a });
    for (const q of pending.openQuestions()) send(questionRequest(q));
  }

  const actions = makePhoneActions({
    core,
    turns,
    roots: allowedRoots,
    allowFullAccess: options.allowFullAccess ?? false,
    seen,
    identity,
    phones,
    sendSnapshotAndRemind,
  });

  function setRePair(needed: boolean): void {
    if (needed === rePairNeeded) return;
    rePairNeeded = needed;
    if (needed) {
      log(
        'error',
        're-pair-needed',
        'a frame from a phone did not decrypt with this pairing: RE-PAIR NEEDED (run with --re-pair and scan the new code)',
      );
    } else {
      log('info', 're-pair-cleared', 'frames decrypt again');
    }
    fire('rePairNeeded', needed);
  }

  function onPayload(payload: string): void {
    const opened = open(payload, rooms.current().key);
    if (!opened.ok) {
      log('warn', `decrypt-${opened.code}`, 'a frame could not be opened');
      setRePair(true);
      return;
    }
    setRePair(false);
    const parsed = parsePhoneMessage(opened.value);
    if (!parsed.ok) {
      if (parsed.ignored) {
        // D12 and forward compatibility: ignored, logged by type only.
        log(
          'info',
          `ignored-${parsed.code}`,
          `ignored a message of type ${JSON.stringify(parsed.type ?? '?')}`,
        );
      } else {
        log('warn', 'invalid-message', `${parsed.type ?? '?'}: ${parsed.message}`);
        const ty =
          parsed.type !== undefined && isMember(PHONE_MESSAGE_TYPES, parsed.type)
            ? parsed.type
            : undefined;
        // E2/E3: a respond refused at the edge (a scope or an edit with deny) names the approval
        // it was about when that one is pending here, so the phone knows which card stays open.
        const raw: unknown = opened.value;
        const approvalId =
          typeof raw === 'object' && raw !== null && 'approvalId' in raw ? raw.approvalId : null;
        const about =
          ty === 'approval.respond' && typeof approvalId === 'string'
            ? pending.approval(approvalId)
            : undefined;
        actions.invalid(ty, parsed.requestId, parsed.message, parsed.reason, about);
      }
      return;
    }
    actions
      .handle(parsed.value)
      .catch((e: unknown) => log('error', 'action-crashed', (e as Error).message));
  }

  let statusTimer: TimerHandle | null = null;
  const armStatus = () => {
    statusTimer = timers.setTimeout(() => {
      send(status());
      armStatus();
    }, STATUS_INTERVAL_MS);
  };

  const events: RelayLinkEvents = {
    helloOk(f) {
      send(status());
      const room = rooms.current();
      for (const kept of outbox.splice(0)) {
        const frame =
          kept.roomId === room.roomId ? kept.frame : room.sealer.frame(kept.message, kept.push);
        if (frame !== null && room.link.send(frame) && kept.push) receipts.hintSent();
      }
      phoneOnline = f.peers.phone > 0;
      if (phoneOnline) sendSnapshotAndRemind();
      fire('connected');
    },
    presence(f) {
      if (f.role !== 'phone') return;
      phoneOnline = f.online;
      log('info', 'phone-presence', f.online ? 'a phone joined' : 'no phone online');
      if (f.online) {
        send(status());
        sendSnapshotAndRemind();
      }
    },
    msg: onPayload,
    relayError(f) {
      const aboutPush = receipts.relayError(f.code, f.message ?? '');
      log(aboutPush ? 'warn' : 'error', `relay-${f.code}`, f.message ?? f.code);
      fire('relayError', f.code, f.message ?? '');
    },
    down() {
      phoneOnline = false;
      receipts.linkLost();
    },
  };
  const rooms = makeRooms({
    relay: options.relay,
    appUrl: options.appUrl,
    stateDir: options.stateDir,
    name,
    rePair: options.rePair ?? false,
    log,
    timers,
    store,
    ...(options.random ? { random: options.random } : {}),
    ...(options.backoff ? { backoff: options.backoff } : {}),
    events,
    rotateFor: (phoneId, key) => identity.rotateFor(phoneId, key),
    onMoved() {
      phoneOnline = false;
      fire('pairingChanged', rooms.current().pairing);
    },
  });
  armStatus();

  let localSession: string | null = null;
  const sessionFor = (id: string | undefined): string => {
    if (id !== undefined) return id;
    if (localSession === null) {
      localSession = sessions.create({
        prompt: 'Scripted events',
        cwd: allowedRoots[0] ?? process.cwd(),
        dispatched: false,
        access: 'standard',
        now: timers.now(),
      }).sessionId;
      scheduler.stateChanged(localSession);
    }
    return localSession;
  };

  const handle: MachineHandle = {
    get pairing() {
      return rooms.current().pairing;
    },
    instance,
    allowedRoots,
    status() {
      const r = rooms.current().link.state();
      return {
        connected: r.connected,
        phoneOnline,
        rePairNeeded,
        errorState: r.errorState,
        consecutiveFailures: r.consecutiveFailures,
        ...(receipts.current() ? { pushReceipt: receipts.current()! } : {}),
      };
    },
    sessions: () => sessions.list().map(toWireSession),
    transcript: (id) => sessions.get(id)?.transcript.all() ?? [],
    pendingApprovals: () => pending.openApprovals(),
    pendingQuestions: () => pending.openQuestions(),
    answerApproval(id, decision) {
      return pending.decideLocally(id, decision === 'allow')
        ? { ok: true }
        : { ok: false, code: 'not-pending', message: `approval ${id} is not pending` };
    },
    answerQuestion(id, answers) {
      const q = pending.question(id);
      if (q === undefined)
        return { ok: false, code: 'not-pending', message: `question ${id} is not pending` };
      const check = checkAnswers(q.items, answers);
      if (!check.ok) return { ok: false, code: 'bad-answer', message: check.message };
      pending.answer(id, answers, 'local');
      return { ok: true };
    },
    startSession(prompt, cwd) {
      const s = sessions.create({
        prompt,
        cwd,
        dispatched: false,
        access: 'standard',
        now: timers.now(),
      });
      turns.start(s, prompt);
      return s.sessionId;
    },
    raiseApproval(fields) {
      // Scripted events name no tool a rule could be made for: once only, never editable.
      const { approval, outcome } = pending.openApproval(
        sessionFor(fields.sessionId),
        clampApprovalTitle(fields.title),
        clampDetail(fields.detail),
        { tool: fields.tool ?? 'script' },
      );
      return { approvalId: approval.approvalId, outcome: outcome.then((o) => o.resolution) };
    },
    raiseQuestion(fields) {
      const { question, outcome } = pending.openQuestion(
        sessionFor(fields.sessionId),
        clampItems(fields.items),
      );
      return { questionId: question.questionId, outcome: outcome.then((o) => o.resolution) };
    },
    rules: () => rules.list(),
    revokeRule(id) {
      if (!rules.list().some((r) => r.ruleId === id))
        return { ok: false, code: 'no-rule', message: `no rule ${id}` };
      if (!rules.revoke(id))
        return {
          ok: false,
          code: 'no-rule',
          message: 'could not forget the rule; it still stands',
        };
      log('info', 'rule-revoked', `rule ${id.slice(0, 8)} revoked at the desk`);
      rulesChanged();
      return { ok: true };
    },
    phones: () => phones.list().map(toEntry),
    revokePhone: (id) => identity.revoke(id),
    disposeSession(id) {
      const s = sessions.get(id);
      if (s === undefined) return { ok: false, code: 'no-session', message: `no session ${id}` };
      turns.dispose(s);
      return { ok: true };
    },
    connected(timeoutMs = 10_000) {
      if (rooms.current().link.state().connected) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          off();
          reject(new Error('the machine did not connect to the relay in time'));
        }, timeoutMs);
        const off = handle.on({
          connected() {
            clearTimeout(t);
            off();
            resolve();
          },
        });
      });
    },
    on(events) {
      listeners.add(events);
      return () => listeners.delete(events);
    },
    async close() {
      if (closing) return;
      closing = true;
      if (statusTimer) timers.clearTimeout(statusTimer);
      receipts.close();
      // Turns stop first (their asks close, their tools' process groups end) and write their
      // last state; only then does the store close.
      const stopped = turns.stopAll('the machine shut down', SHUTDOWN_GRACE_MS);
      pending.close();
      await stopped;
      scheduler.close();
      await rooms.close();
      await localHost.close();
      store.close();
      listeners.clear();
    },
  };
  return handle;
}
