import type { CompactPushFields, DecidedBy, MachineMessage } from '../protocol/index.ts';
import type { UpdateScheduler } from './sessions/activity.ts';
import type { Agents } from './agent/registry.ts';
import type { Log } from './log.ts';
import type { Pending } from './approvals/pending.ts';
import type { PresenceGate } from './phones/presence-gate.ts';
import type { Rules } from './approvals/rules.ts';
import type { SessionStore } from './sessions/sessions.ts';
import type { Timers } from './timers.ts';
import type { ToolHost } from './links/tool-host.ts';

/** What the parts of a running machine share. */
export type Core = {
  readonly timers: Timers;
  readonly log: Log;
  readonly sessions: SessionStore;
  readonly pending: Pending;
  readonly scheduler: UpdateScheduler;
  /** The allowed roots (resolved); E2's `always` rules are kept per root. */
  readonly roots: readonly string[];
  /** E2: remembered approvals. */
  readonly rules: Rules;
  /** E2: sends the `rules` message (to an online phone) after any change, uses included. */
  rulesChanged(): void;
  /** Seals and sends; when no phone is online, push-worthy messages carry a compact push. */
  send(message: MachineMessage, push?: CompactPushFields): void;
  host(): ToolHost;
  /** E6: `by` for a decision claimed by this phone (absent: unknown or no phoneId). */
  decidedBy(phoneId: string | undefined): DecidedBy | undefined;
  /** E7: the presence policy and the check of an assertion. */
  readonly presence: PresenceGate;
  /** E9: the current room's id, which every presence challenge names. */
  roomId(): string;
  /** E10: the agents this machine offers. */
  readonly agents: Agents;
};
