import type { AccessLevel, WebAuthnCredential } from '../../protocol/index.ts';
import type { LinkStatus } from './connection.ts';
import type { ChoiceRefusal } from './extensions.ts';
import type { Kv } from './kv.ts';
import type { MachineView } from './machine-view.ts';
import type { OutboxEntry } from './outbox.ts';
import type { RemovedNotice } from './pairing-store.ts';
import type { Authenticator, PresenceFailure } from './webauthn.ts';
import type { ReplyNote } from './reply-notes.ts';
import type { SocketFactory, Timeouts } from './socket.ts';

// The client's public shapes (client.ts re-exports them).

export type RelayNotice = { code: string; message?: string; at: number };
/** U4.offline: whether this phone has a network at all (the browser's online/offline events). */
export const NETWORK_STATES = { online: 'online', offline: 'offline' } as const;
export type NetworkState = (typeof NETWORK_STATES)[keyof typeof NETWORK_STATES];
export type ClientState = {
  ready: boolean;
  /** Paired machines in pairing order. */
  machines: MachineView[];
  links: Record<string, LinkStatus>;
  relayNotices: Record<string, RelayNotice>;
  outbox: readonly OutboxEntry[];
  network: NetworkState;
  /** U2: what is typed in each box (drafts.ts keys), kept until the machine confirmed it. */
  drafts: Readonly<Record<string, string>>;
  /** U2: the fate of recent replies per reply draft key (reply-notes.ts). */
  replyNotes: Readonly<Record<string, ReplyNote[]>>;
  /** E6: machines that removed this phone; their secrets are gone. */
  removed: readonly RemovedNotice[];
  /** E6: this phone's id and name per paired room (Machine › Phones marks "this phone"). */
  phones: Readonly<Record<string, { phoneId: string; name: string }>>;
  /** E6: a `room.rotate` for this phone that could not be opened, by room (never acted on). */
  rotateFailures: Readonly<Record<string, string>>;
  /** E6: rooms this phone moved out of after a rotate, and where to (screens follow). */
  moved: Readonly<Record<string, string>>;
  /** E7: this phone's registered platform credential, if the owner turned presence on. */
  credential: WebAuthnCredential | null;
};

export const ACT_BLOCKS = {
  noNetwork: 'no-network',
  offline: 'offline',
  machineOffline: 'machine-offline',
  repairNeeded: 'repair-needed',
  phonePending: 'phone-pending',
  unknownMachine: 'unknown-machine',
  storageFailed: 'storage-failed',
} as const;
export type ActBlock = (typeof ACT_BLOCKS)[keyof typeof ACT_BLOCKS];
/** EC: the machine never announced the capability this action needs, so nothing is sent. */
export const NOT_OFFERED = 'not-offered';
/** E9: a second approval.request reused this id with other content; Allow is refused. */
export const CONTENT_CONFLICT = 'content-conflict';
export type ActRefusal =
  ActBlock | ChoiceRefusal | typeof NOT_OFFERED | typeof CONTENT_CONFLICT | PresenceFailure;
export type ActResult = { ok: true; requestId: string } | { ok: false; code: ActRefusal };

export type ClientDeps = {
  kv: Kv;
  socket: SocketFactory;
  timers: Timeouts;
  now?: () => number;
  random?: () => number;
  uuid?: () => string;
  log?: (line: string) => void;
  /** The push subscription endpoint, once the push issue has one (forget unsubscribes it). */
  pushEndpoint?: () => string | undefined;
  /** Called after every hello-ok for a room (the push client re-sends push-subscribe, D7). */
  onJoined?: (roomId: string) => unknown;
  /** F4: a machine was forgotten; what the push client keeps for its room goes too. */
  onForgotten?: (roomId: string) => Promise<void> | void;
  /** E6: the name a new pairing gives this phone ("Pixel 8 · Chrome", phone-identity.ts). */
  phoneName?: () => string;
  /** E7: the platform authenticator (webauthn.ts); absent = presence cannot be turned on. */
  authenticator?: Authenticator;
  /**
   * A8: resolves once the crypto library is loaded (nacl-on-demand.ts, a lazy chunk in the app);
   * start() and pair() wait for it before any key is derived. Absent = already there.
   */
  loadCrypto?: () => Promise<void>;
};

export type DispatchInput = {
  prompt: string;
  cwd?: string;
  worktree: boolean;
  access?: AccessLevel;
  /** E10: one of the machine's `capabilities.agents`; absent = its default. */
  agent?: string;
};
