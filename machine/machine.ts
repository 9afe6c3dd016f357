import {
  ACTIVITY_COALESCE_MS,
  encodePairing,
  isMember,
  MAX_MACHINE_NAME_CHARS,
  open,
  PHONE_MESSAGE_TYPES,
  pairingLink,
  parsePhoneMessage,
  roomKeys,
  STATUS_INTERVAL_MS,
  toBase64Url,
  clampText,
  type ApprovalResolution,
  type BackoffProfile,
  type CompactPushFields,
  type MachineMessage,
  type QuestionAnswer,
  type QuestionItem,
  type Session,
} from '../protocol/index.ts';
import { makeUpdateScheduler } from './activity.ts';
import type { Core } from './core.ts';
import { resolveRoots } from './cwd-guard.ts';
import { makeLocalToolHost } from './local-tool-host.ts';
import { consoleLog, type Log } from './log.ts';
import { checkAnswers, makePending, type OpenApproval, type OpenQuestion } from './pending.ts';
import { clampApprovalTitle, clampDetail, clampItems, makeFrameSealer } from './outbound.ts';
import { makePhoneActions } from './phone-actions.ts';
import { makeRelayLink } from './relay-link.ts';
import { makeSessionStore, toWireSession } from './sessions.ts';
import { loadOrCreateSecret, writePairingCode } from './state-dir.ts';
import { realTimers, type Timers, type TimerHandle } from './timers.ts';
import type { ToolHost, ToolHostProvider } from './tool-host.ts';
import { makeTurns } from './turns.ts';
import type { StoredEntry } from './transcript.ts';

export const PLUGIN_VERSION = 'mock-machine/0.1.0';
/** Frames kept while the relay is away (sent after hello-ok); state is re-sent anyway. */
export const MAX_OUTBOX_FRAMES = 200;

export type MachineOptions = {
  relay: string;
  name: string;
  /** `--root` values as typed: resolved (absolute, ~-expanded, realpath) here. */
  roots: readonly string[];
  stateDir: string;
  appUrl: string;
  allowFullAccess?: boolean;
  rePair?: boolean;
  log?: Log;
  /** Clock and timers for every rule about time (coalescing, 60 s status, D11, expiry, sleep:). */
  timers?: Timers;
  /** Reconnect jitter. */
  random?: () => number;
  backoff?: BackoffProfile;
  /** Where tools run; default: the local host over the allowed roots. */
  toolHost?: ToolHostProvider;
  approvalTimeoutMs?: number;
  questionTimeoutMs?: number;
  /** Sees every frame the machine sends, with the message inside (tests, the desk). */
  onSend?: (message: MachineMessage, push: CompactPushFields | undefined, frame: string) => void;
};

export type MachineEvents = {
  approvalOpened?(a: OpenApproval): void;
  approvalClosed?(a: OpenApproval, resolution: ApprovalResolution): void;
  questionOpened?(q: OpenQuestion): void;
  questionClosed?(q: OpenQuestion, resolution: string): void;
  rePairNeeded?(needed: boolean): void;
  relayError?(code: string, message: string): void;
  connected?(): void;
};

export type MachineStatusView = {
  connected: boolean;
  phoneOnline: boolean;
  rePairNeeded: boolean;
  errorState: boolean;
  consecutiveFailures: number;
};

export type LocalResult =
  { ok: true } | { ok: false; code: 'not-pending' | 'bad-answer' | 'no-session'; message: string };

export type MachineHandle = {
  readonly pairing: {
    code: string;
    link: string;
    roomId: string;
    codeFile: string;
    created: boolean;
  };
  readonly allowedRoots: readonly string[];
  status(): MachineStatusView;
  sessions(): Session[];
  transcript(sessionId: string): readonly StoredEntry[];
  pendingApprovals(): OpenApproval[];
  pendingQuestions(): OpenQuestion[];
  /** The desk: answers here close the phone's card with `local`. */
  answerApproval(approvalId: string, decision: 'allow' | 'deny'): LocalResult;
  answerQuestion(questionId: string, answers: QuestionAnswer[]): LocalResult;
  /** Scripted events: a local (not dispatched) session running a script or the demo. */
  startSession(prompt: string, cwd: string): string;
  /** Raises an approval on a session (a local one is made when none is named). */
  raiseApproval(fields: { sessionId?: string; title: string; detail: string }): {
    approvalId: string;
    outcome: Promise<ApprovalResolution>;
  };
  raiseQuestion(fields: { sessionId?: string; items: QuestionItem[] }): {
    questionId: string;
    outcome: Promise<string>;
  };
  disposeSession(sessionId: string): LocalResult;
  /** Waits for the relay's hello-ok (bounded). */
  connected(timeoutMs?: number): Promise<void>;
  on(events: MachineEvents): () => void;
  close(): Promise<void>;
};

export class MachineStartError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

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
  const { secret, created } = loadOrCreateSecret(options.stateDir, options.rePair ?? false);
  const { roomId, key } = roomKeys(secret);
  const code = encodePairing({
    v: 1,
    relay: options.relay,
    secret: toBase64Url(secret),
    machine: name,
  });
  const codeFile = writePairingCode(options.stateDir, code);
  const link = pairingLink(options.appUrl, code);
  if (options.rePair)
    log('warn', 're-paired', 'new pairing secret: phones paired before must scan the new code');

  const listeners = new Set<MachineEvents>();
  const fire = <K extends keyof MachineEvents>(
    k: K,
    ...args: Parameters<NonNullable<MachineEvents[K]>>
  ) => {
    for (const l of listeners) (l[k] as ((...a: unknown[]) => void) | undefined)?.(...args);
  };

  const sealer = makeFrameSealer(roomId, key);
  const outbox: string[] = [];
  let phoneOnline = false;
  let rePairNeeded = false;
  let closing = false;
  const localHost: ToolHost = makeLocalToolHost({
    roots: allowedRoots.length > 0 ? allowedRoots : [],
  });
  const hostProvider: ToolHostProvider = options.toolHost ?? (() => localHost);
  const sessions = makeSessionStore();

  function pushFor(m: MachineMessage): CompactPushFields | undefined {
    if (phoneOnline) return undefined;
    switch (m.type) {
      case 'approval.request':
        return {
          kind: 'approval',
          sessionId: m.sessionId,
          title: m.title,
          approvalId: m.approvalId,
        };
      case 'question.request':
        return {
          kind: 'question',
          sessionId: m.sessionId,
          title: m.items[0]?.prompt ?? 'A question',
          questionId: m.questionId,
        };
      case 'turn.final':
        return {
          kind: 'done',
          sessionId: m.sessionId,
          title: sessions.get(m.sessionId)?.title ?? 'Turn finished',
        };
      case 'error':
        // A machine-wide error answers something a phone just sent: no notification needed.
        return m.sessionId === undefined
          ? undefined
          : { kind: 'error', sessionId: m.sessionId, title: m.message };
      default:
        return undefined;
    }
  }

  function send(message: MachineMessage): void {
    const push = pushFor(message);
    const frame = sealer.frame(message, push);
    if (frame === null) {
      log('error', 'frame-too-large', `${message.type} does not fit the 16 KiB envelope; not sent`);
      return;
    }
    options.onSend?.(message, push, frame);
    if (!relay.send(frame)) {
      // State (status, snapshot, updates) is re-sent on reconnect; results and closes are kept.
      if (
        message.type !== 'machine.status' &&
        message.type !== 'session.update' &&
        message.type !== 'session.snapshot'
      ) {
        outbox.push(frame);
        if (outbox.length > MAX_OUTBOX_FRAMES) outbox.shift();
      }
    }
  }

  const pending = makePending({
    timers,
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
        send({
          v: 1,
          type: 'question.request',
          ts: timers.now(),
          questionId: q.questionId,
          sessionId: q.sessionId,
          items: [...q.items],
          createdAt: q.createdAt,
        });
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
      if (s !== undefined)
        send({ v: 1, type: 'session.update', ts: timers.now(), session: toWireSession(s) });
    },
  });

  const core: Core = { timers, log, sessions, pending, scheduler, send, host: hostProvider };
  const turns = makeTurns(core);

  const status = (): MachineMessage => ({
    v: 1,
    type: 'machine.status',
    ts: timers.now(),
    machine: name,
    pluginVersion: PLUGIN_VERSION,
    allowedRoots: [...allowedRoots],
    capabilities: {
      fullAccessDispatch: options.allowFullAccess ?? false,
      questionForwarding: true,
    },
  });

  function sendSnapshotAndRemind(): void {
    // One envelope holds ~16 KiB: the newest sessions go in the snapshot, the rest follow as updates.
    const all = sessions.list().map(toWireSession);
    const inSnapshot: Session[] = [];
    let rest = all;
    for (let n = all.length; n >= 0; n = Math.floor(n * 0.75) - (n > 0 ? 0 : 1)) {
      const candidate = all.slice(0, n);
      if (
        sealer.frame({ v: 1, type: 'session.snapshot', ts: timers.now(), sessions: candidate }) !==
        null
      ) {
        inSnapshot.push(...candidate);
        rest = all.slice(n);
        break;
      }
      if (n === 0) break;
    }
    send({ v: 1, type: 'session.snapshot', ts: timers.now(), sessions: inSnapshot });
    for (const s of rest) send({ v: 1, type: 'session.update', ts: timers.now(), session: s });
    // D8: re-remind every open approval and question; the phone dedupes by id.
    for (const a of pending.openApprovals())
      send({ v: 1, type: 'approval.request', ts: timers.now(), ...a });
    for (const q of pending.openQuestions()) {
      send({
        v: 1,
        type: 'question.request',
        ts: timers.now(),
        questionId: q.questionId,
        sessionId: q.sessionId,
        items: [...q.items],
        createdAt: q.createdAt,
      });
    }
  }

  const actions = makePhoneActions({
    core,
    turns,
    roots: allowedRoots,
    allowFullAccess: options.allowFullAccess ?? false,
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
    const opened = open(payload, key);
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
        actions.invalid(ty, parsed.requestId, parsed.message, parsed.reason);
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

  const relay = makeRelayLink({
    url: options.relay,
    roomId,
    log,
    ...(options.random ? { random: options.random } : {}),
    ...(options.backoff ? { profile: options.backoff } : {}),
    events: {
      helloOk(f) {
        send(status());
        for (const frame of outbox.splice(0)) relay.send(frame);
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
        const level = f.code.startsWith('push-') ? 'warn' : 'error';
        log(level, `relay-${f.code}`, f.message ?? f.code);
        fire('relayError', f.code, f.message ?? '');
      },
      down() {
        phoneOnline = false;
      },
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
    pairing: { code, link, roomId, codeFile, created },
    allowedRoots,
    status() {
      const r = relay.state();
      return {
        connected: r.connected,
        phoneOnline,
        rePairNeeded,
        errorState: r.errorState,
        consecutiveFailures: r.consecutiveFailures,
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
      const { approval, outcome } = pending.openApproval(
        sessionFor(fields.sessionId),
        clampApprovalTitle(fields.title),
        clampDetail(fields.detail),
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
    disposeSession(id) {
      const s = sessions.get(id);
      if (s === undefined) return { ok: false, code: 'no-session', message: `no session ${id}` };
      turns.dispose(s);
      return { ok: true };
    },
    connected(timeoutMs = 10_000) {
      if (relay.state().connected) return Promise.resolve();
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
      scheduler.close();
      for (const s of sessions.list()) s.turn?.abort();
      pending.close();
      await relay.close();
      await localHost.close();
      listeners.clear();
    },
  };
  return handle;
}
