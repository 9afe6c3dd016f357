import type {
  MachineMessage,
  PresenceRequirement,
  PushReceipt,
  Session,
} from '../../protocol/index.ts';
import type { OpenApproval, OpenQuestion } from '../approvals/pending.ts';
import { snapshotMessages } from '../sessions/snapshot.ts';

// The messages the machine builds from its own state (the ones that answer a phone's action are
// built where the action is handled).

export const PLUGIN_VERSION = 'mock-machine/0.1.0';

export type StatusFacts = {
  name: string;
  allowedRoots: readonly string[];
  allowFullAccess: boolean;
  /** E7: absent under `--require-presence none`. */
  presence: PresenceRequirement | undefined;
  pushReceipt: PushReceipt | undefined;
  instance: string;
  /** E6: the machine's public box key, standard base64. */
  boxKey: string;
  /** E10: the agents it offers, default first. */
  agents: readonly string[];
};

/** machine.status with every capability this machine has (E2–E4, E6; E7 when a policy is set). */
export const statusMessage = (f: StatusFacts, ts: number): MachineMessage => ({
  v: 1,
  type: 'machine.status',
  ts,
  machine: f.name,
  pluginVersion: PLUGIN_VERSION,
  allowedRoots: [...f.allowedRoots],
  capabilities: {
    fullAccessDispatch: f.allowFullAccess,
    questionForwarding: true,
    approvalRules: true,
    approvalEdit: true,
    interrupt: true,
    phones: true,
    ...(f.presence ? { presence: f.presence } : {}),
    agents: [...f.agents],
  },
  ...(f.pushReceipt ? { pushReceipt: f.pushReceipt } : {}),
  instance: f.instance,
  boxKey: f.boxKey,
});

export const questionRequest = (q: OpenQuestion, ts: number): MachineMessage => ({
  v: 1,
  type: 'question.request',
  ts,
  questionId: q.questionId,
  sessionId: q.sessionId,
  items: [...q.items],
  createdAt: q.createdAt,
  expiresAt: q.expiresAt,
});

export const approvalRequest = (a: OpenApproval, ts: number): MachineMessage => ({
  v: 1,
  type: 'approval.request',
  ts,
  ...a,
});

/** For a phone that joins: the snapshot, then every open approval and question again (D8). */
export function joinMessages(
  sessions: Session[],
  approvals: OpenApproval[],
  questions: OpenQuestion[],
  ts: number,
  fits: (m: MachineMessage) => boolean,
): MachineMessage[] {
  // E1: the ids pending right now; the phone closes every other card of this machine.
  const open = {
    approvals: approvals.map((a) => a.approvalId),
    questions: questions.map((q) => q.questionId),
  };
  return [
    ...snapshotMessages(sessions, open, ts, fits),
    ...approvals.map((a) => approvalRequest(a, ts)),
    ...questions.map((q) => questionRequest(q, ts)),
  ];
}
