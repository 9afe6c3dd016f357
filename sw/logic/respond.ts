import {
  encodeFrame,
  open,
  parseMachineMessage,
  parseServerFrame,
  seal,
  sealPhoneMessage,
  type ApprovalRespond,
  type Decision,
} from '../../protocol/index.ts';
import { APPROVAL_OUTCOMES, outcomeFromMessage, type ApprovalOutcome } from './outcome.ts';
import type { PhoneProof } from './rooms.ts';
import { SOCKET_OPEN, type SocketFactory, type Timeouts } from './socket.ts';

/** E9: the message inside this phone's `phone.sealed`, or as it is without a proof. */
function proven(message: ApprovalRespond, proof: PhoneProof | undefined): object {
  if (!proof) return message;
  const text = JSON.stringify(message);
  return {
    v: 1,
    type: 'phone.sealed',
    ts: message.ts,
    phoneId: proof.phoneId,
    message: text,
    box: sealPhoneMessage(text, proof.machineBoxKey, proof.phoneSecretKey),
  };
}

/** N4: how long a notification's Allow/Deny waits for the machine's approval.closed. */
export const APPROVAL_CONFIRM_DEADLINE_MS = 10_000;

export type RespondInput = {
  relayUrl: string;
  roomId: string;
  key: Uint8Array;
  approvalId: string;
  decision: Decision;
  socket: SocketFactory;
  timers: Timeouts;
  now: () => number;
  randomUUID: () => string;
  deadlineMs?: number;
  /** E9: with it the answer goes as this phone's `phone.sealed` (the machine acts on no other). */
  proof?: PhoneProof;
};

export type RespondResult = {
  outcome: ApprovalOutcome;
  requestId: string;
  /** Whether the sealed approval.respond left this device (false: relay or machine unreachable). */
  sent: boolean;
};

/**
 * Answers one approval from the service worker over a short-lived socket: hello as phone, send
 * the sealed approval.respond (fresh requestId) once the machine is in the room, wait for the
 * matching approval.closed, close. Called only from the user's Allow or Deny tap. Never throws;
 * anything short of a confirmation is `not-confirmed`, so the app can be opened to check.
 */
export function respondToApproval(input: RespondInput): Promise<RespondResult> {
  const requestId = input.randomUUID();
  return new Promise((resolve) => {
    let done = false;
    let joined = false;
    let sent = false;
    const finish = (outcome: ApprovalOutcome) => {
      if (done) return;
      done = true;
      input.timers.clearTimeout(deadline);
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      try {
        socket.close(1000, 'answered');
      } catch {
        // Closing a socket that never opened can throw in some runtimes; nothing to clean up.
      }
      resolve({ outcome, requestId, sent });
    };
    const deadline = input.timers.setTimeout(
      () => finish(APPROVAL_OUTCOMES.notConfirmed),
      input.deadlineMs ?? APPROVAL_CONFIRM_DEADLINE_MS,
    );
    const sendDecision = () => {
      if (sent || socket.readyState !== SOCKET_OPEN) return;
      const message: ApprovalRespond = {
        v: 1,
        type: 'approval.respond',
        ts: input.now(),
        requestId,
        approvalId: input.approvalId,
        decision: input.decision,
        ...(input.proof ? { phoneId: input.proof.phoneId } : {}),
      };
      const payload = seal(proven(message, input.proof), input.key);
      socket.send(encodeFrame({ kind: 'msg', room: input.roomId, payload }));
      sent = true;
    };

    let socket: ReturnType<SocketFactory>;
    try {
      socket = input.socket(input.relayUrl);
    } catch {
      input.timers.clearTimeout(deadline);
      resolve({ outcome: APPROVAL_OUTCOMES.notConfirmed, requestId, sent: false });
      return;
    }
    socket.onopen = () => {
      socket.send(encodeFrame({ kind: 'hello', room: input.roomId, role: 'phone' }));
    };
    socket.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      const frame = parseServerFrame(ev.data);
      if (!frame.ok) return;
      const f = frame.value;
      if (f.kind === 'hello-ok' && !joined) {
        joined = true;
        // The relay forwards only to sockets present now: wait for the machine if it is away.
        if (f.peers.machine > 0) sendDecision();
      } else if (f.kind === 'presence') {
        if (joined && f.room === input.roomId && f.role === 'machine' && f.online) sendDecision();
      } else if (f.kind === 'msg') {
        if (f.room !== input.roomId || !sent) return;
        const opened = open(f.payload, input.key);
        if (!opened.ok) return;
        const message = parseMachineMessage(opened.value);
        if (!message.ok) return;
        const outcome = outcomeFromMessage(
          message.value,
          input.approvalId,
          input.decision,
          requestId,
        );
        if (outcome) finish(outcome);
      } else if (f.kind === 'error') {
        // bad-hello, limit, too-large…: the decision did not (or may not) arrive.
        finish(APPROVAL_OUTCOMES.notConfirmed);
      }
    };
    socket.onclose = () => finish(APPROVAL_OUTCOMES.notConfirmed);
    socket.onerror = () => finish(APPROVAL_OUTCOMES.notConfirmed);
  });
}
