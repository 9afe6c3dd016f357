import type {
  ApprovalRequest,
  DecidedBy,
  DispatchResult,
  ErrorMessage,
  MachineStatus,
  PhoneEntry,
  QuestionRequest,
  RuleEntry,
  Session,
  TurnFinal,
} from '../../protocol/index.ts';
import type { FrameClock } from './stale-frames.ts';
import type { TranscriptView } from './transcript-merge.ts';

// The shapes of one machine's view, in one place that imports none of the modules computing it
// (machine-view.ts, reconcile.ts, waiting.ts), so those three never import each other in a circle
// (proven by import-cycles.test.ts).

/** How a card ended: the machine's resolution, or the phone's E1 inference (reconcile.ts). */
export type ClosedNote = {
  kind: 'approval' | 'question';
  id: string;
  resolution: string;
  sessionId: string;
  title: string;
  /**
   * E11.4: the command a command card named in its title ("Run `npm test`"), so the closed card
   * reads as the open one did, whatever the machine's own title said ("Run a command").
   */
  command?: string;
  /** Phone time. */
  at: number;
  /** Machine time of the frame that closed it (waiting.ts: explains a stale "waiting" state). */
  ts: number;
  /** E1: the decision this phone had queued for the card, never confirmed and now dropped. */
  undelivered?: 'allow' | 'deny' | 'answer';
  /** E6: the phone that decided, as the machine said. */
  by?: DecidedBy;
  /** SC1: machine time the card was asked (`createdAt`), where the timeline shows it. */
  askedTs?: number;
  /** SC1: what this phone chose, when the machine closed the card on its decision. */
  chosen?: Chosen;
};

/** SC1: a decision as this phone sent it (E2 scope, E3 edit, E11 message, a question's labels). */
export type Chosen = {
  scope?: 'once' | 'session' | 'always';
  ruleKey?: string;
  edited?: string;
  message?: string;
  labels?: string[];
};

/** A card that ended, by id ("a:<id>" / "q:<id>"): who ended it and the machine ts of that frame. */
export type Ended = { by: 'machine' | 'phone'; ts: number };

export type MachineView = {
  roomId: string;
  name: string;
  relay: string;
  status: MachineStatus | null;
  statusAt: number | null;
  sessions: Record<string, Session>;
  approvals: Record<string, ApprovalRequest>;
  questions: Record<string, QuestionRequest>;
  closed: ClosedNote[];
  finals: Record<string, TurnFinal>;
  errors: (ErrorMessage & { at: number })[];
  transcripts: Record<string, TranscriptView>;
  dispatchResults: Record<string, DispatchResult>;
  machineOnline: boolean;
  machineSince: number | null;
  repairNeeded: boolean;
  /** When the last message from the machine arrived (offline reading shows "as of hh:mm"). */
  asOf: number | null;
  /** True while the view holds only what was saved on this phone, nothing live yet. */
  fromCache: boolean;
  /** E1: `machine.status.instance` of the process we talk to, and the ones that went away. */
  instance: string | null;
  retired: string[];
  /** H10: newest machine ts per frame key (stale-frames.ts). */
  frames: FrameClock;
  ended: Record<string, Ended>;
  /** E2: the machine's remembered approvals as its last `rules` said; null = not asked yet. */
  rules: RuleEntry[] | null;
  /** E6: the machine's phones as its last `phones` said; null = not heard yet. */
  phones: PhoneEntry[] | null;
  /**
   * E9: approval ids a second `approval.request` reused with other content. The first content
   * stays on the card, which refuses Allow; absent = none.
   */
  conflicts?: Record<string, true>;
  /** E9: when this room said "this phone was removed" without the machine's proof (kept S). */
  unprovenRemoval?: number;
};

/** What a transcript reply was asking for, remembered by requestId. */
export type TranscriptAsk = { sessionId: string; before?: number };
