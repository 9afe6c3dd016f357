import { randomUUID } from 'node:crypto';
import {
  ACTIVITY_COALESCE_MS,
  clampText,
  encodeBoxKey,
  MAX_MACHINE_NAME_CHARS,
  STATUS_INTERVAL_MS,
  toBase64Url,
  type MachineMessage,
  type RuleEntry,
} from '../protocol/index.ts';
import { makeUpdateScheduler } from './sessions/activity.ts';
import type { Core } from './core.ts';
import { resolveRoots } from './dispatch/cwd-guard.ts';
import { makeLocalToolHost } from './links/local-tool-host.ts';
import { consoleLog } from './log.ts';
import {
  MachineStartError,
  type MachineEvents,
  type MachineHandle,
  type MachineOptions,
} from './machine-types.ts';
import { makePending } from './approvals/pending.ts';
import { loadOrCreateBoxKey } from './phones/box-key.ts';
import { makePhoneActions } from './wire/phone-actions.ts';
import { makePhoneIdentity } from './phones/phone-identity.ts';
import { makePhones } from './phones/phones.ts';
import { makeIdentityGate } from './phones/identity-gate.ts';
import { makePresenceGate } from './phones/presence-gate.ts';
import { makeInbound } from './wire/inbound.ts';
import { makeMachineHandle } from './machine-handle.ts';
import {
  approvalRequest,
  joinMessages,
  questionRequest,
  statusMessage,
} from './wire/machine-messages.ts';
import { makeOutbox } from './wire/outbox.ts';
import { makePushReceipts } from './links/push-receipts.ts';
import type { RelayLinkEvents } from './links/relay-link.ts';
import { makeRooms } from './links/rooms.ts';
import { makeRules } from './approvals/rules.ts';
import { makeSeenRequests } from './wire/seen-requests.ts';
import { makeSessionStore, toWireSession } from './sessions/sessions.ts';
import { openStore } from './sessions/store.ts';
import { makeTranscripts } from './sessions/transcript.ts';
import { realTimers, type TimerHandle } from './timers.ts';
import type { ToolHost, ToolHostProvider } from './links/tool-host.ts';
import { makeTurns } from './sessions/turns.ts';
import { makeAgents } from './agent/registry.ts';
import { makeDeskSessions } from './hooks/desk-sessions.ts';
import { startHookSocket } from './hooks/hook-socket.ts';

export { MachineStartError } from './machine-types.ts';
export type {
  MachineEvents,
  MachineHandle,
  MachineOptions,
  MachineStatusView,
  LocalResult,
} from './machine-types.ts';

/** On shutdown, how long running turns get to stop their tools and write their last state. */
export const SHUTDOWN_GRACE_MS = 5000;
/** E9: how often pending and revoked phones past their time are looked for. */
export const PHONE_SWEEP_MS = 5 * 60_000;

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
  const agents = makeAgents(options.agents);
  // E10: a session whose agent keeps its own conversation (a native id) and is offered here can
  // take a reply after a restart: the reply resumes it. E11: any other one (the mock's, an agent's
  // that never reported its id, or whose agent is not offered now) has ended because the machine
  // restarted — it says so, and a reply to it is refused, never started afresh. A session started
  // at the desk (E10 hooks) takes no reply at all and lives on in its terminal: neither.
  for (const s of sessions.list()) {
    if (s.ended !== undefined || !s.dispatched) continue;
    if (s.nativeId !== undefined && agents.get(s.agent) !== undefined) s.live = true;
    else s.ended = 'machine-restarted';
  }
  /** E1: a new id for every process start, so a phone can tell a restart from a reconnect. */
  const instance = randomUUID();

  // send() reports every push hint that leaves to it; a change goes to an online phone at once.
  const receipts = makePushReceipts({
    timers,
    ...(options.pushAnswerWindowMs !== undefined ? { windowMs: options.pushAnswerWindowMs } : {}),
    onChange(receipt) {
      // A phone that is away gets the receipt in the status sent when it joins.
      if (outbox.phoneOnline()) send(status());
      fire('pushReceipt', receipt);
    },
  });

  const outbox = makeOutbox({
    rooms: () => rooms,
    log,
    sessionTitle: (id) => sessions.get(id)?.title,
    hintSent: () => receipts.hintSent(),
    ...(options.onSend ? { onSend: options.onSend } : {}),
  });
  const send = outbox.send;

  const phones = makePhones(store, () => timers.now());
  // E9: `--re-pair` forgets every phone: each one pairs again, the first becomes the approved one.
  if (options.rePair) phones.forgetAll();
  const gate = makeIdentityGate({ phones, boxKeyPair, log });
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
        send(approvalRequest(a, timers.now()));
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
        send(questionRequest(q, timers.now()));
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
    roomId: () => rooms.current().roomId,
    agents,
  };
  const turns = makeTurns(core);
  const identity = makePhoneIdentity({
    core,
    phones,
    rooms: () => rooms,
    boxKeyPair,
    relay: options.relay,
  });

  const status = (): MachineMessage =>
    statusMessage(
      {
        name,
        allowedRoots,
        allowFullAccess: options.allowFullAccess ?? false,
        presence: presence.requirement,
        pushReceipt: receipts.current(),
        instance,
        boxKey: encodeBoxKey(boxKeyPair.publicKey),
        agents: agents.names,
      },
      timers.now(),
    );

  function sendSnapshotAndRemind(): void {
    const all = joinMessages(
      sessions.list().map(toWireSession),
      pending.openApprovals(),
      pending.openQuestions(),
      timers.now(),
      (m) => rooms.current().sealer.frame(m) !== null,
    );
    for (const m of all) send(m);
  }

  const actions = makePhoneActions({
    core,
    turns,
    roots: allowedRoots,
    allowFullAccess: options.allowFullAccess ?? false,
    seen,
    identity,
    phones,
    gate,
    sendSnapshotAndRemind,
  });

  const inbound = makeInbound({
    log,
    key: () => rooms.current().key,
    pending,
    actions,
    onRePair: (needed) => fire('rePairNeeded', needed),
  });

  // E9: pending phones are forgotten after an hour, revoked ones after 30 days, by the clock.
  let phoneSweepTimer: TimerHandle | null = null;
  const armPhoneSweep = () => {
    phoneSweepTimer = timers.setTimeout(() => {
      identity.sweep();
      armPhoneSweep();
    }, PHONE_SWEEP_MS);
  };
  armPhoneSweep();

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
      outbox.flush();
      outbox.setPhoneOnline(f.peers.phone > 0);
      if (f.peers.phone > 0) sendSnapshotAndRemind();
      fire('connected');
    },
    presence(f) {
      if (f.role !== 'phone') return;
      outbox.setPhoneOnline(f.online);
      log('info', 'phone-presence', f.online ? 'a phone joined' : 'no phone online');
      if (f.online) {
        send(status());
        sendSnapshotAndRemind();
      }
    },
    msg: inbound.payload,
    relayError(f) {
      const aboutPush = receipts.relayError(f.code, f.message ?? '');
      log(aboutPush ? 'warn' : 'error', `relay-${f.code}`, f.message ?? f.code);
      fire('relayError', f.code, f.message ?? '');
    },
    down() {
      outbox.setPhoneOnline(false);
      receipts.linkLost();
    },
  };
  const rooms = makeRooms({
    relay: options.relay,
    appUrl: options.appUrl,
    stateDir: options.stateDir,
    name,
    rePair: options.rePair ?? false,
    boxKey: toBase64Url(boxKeyPair.publicKey),
    log,
    timers,
    store,
    ...(options.random ? { random: options.random } : {}),
    ...(options.backoff ? { backoff: options.backoff } : {}),
    events,
    rotateFor: (phoneId, key) => identity.rotateFor(phoneId, key),
    unseal: (m) => {
      const u = gate.unseal(m);
      return u.ok ? u.message : null;
    },
    onMoved() {
      outbox.setPhoneOnline(false);
      fire('pairingChanged', rooms.current().pairing);
    },
  });
  armStatus();

  // E10: Claude Code sessions started at the desk reach the machine through its hook socket.
  const desk = makeDeskSessions(core);
  const hookSocket =
    options.hooks === false
      ? null
      : await startHookSocket({ stateDir: options.stateDir, log, handle: desk.handle });

  async function close(): Promise<void> {
    if (closing) return;
    closing = true;
    if (statusTimer) timers.clearTimeout(statusTimer);
    if (phoneSweepTimer) timers.clearTimeout(phoneSweepTimer);
    receipts.close();
    // Turns stop first (their asks close, their tools' process groups end) and write their
    // last state; only then does the store close.
    const stopped = turns.stopAll('the machine shut down', SHUTDOWN_GRACE_MS);
    // Waiting hooks end with no decision (Claude asks at the terminal), their cards close.
    const hooksClosed = hookSocket?.close();
    desk.close();
    pending.close();
    await hooksClosed;
    await stopped;
    scheduler.close();
    await rooms.close();
    await localHost.close();
    store.close();
    listeners.clear();
  }

  return makeMachineHandle({
    core,
    turns,
    rooms,
    outbox,
    receipts,
    phones,
    identity,
    listeners,
    instance,
    hookSocket: hookSocket?.path ?? null,
    rePairNeeded: inbound.rePairNeeded,
    close,
  });
}
