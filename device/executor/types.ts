// The executor's public types: options, events, exit reasons, status, the handle.
import type { DeviceGoodbyeReason } from '../wire/index.ts';
import type { Timers } from '../timers.ts';
import type { ConnectionEnd } from './connection.ts';
import type { Logger } from './log.ts';
import type { Outcome } from './outcome.ts';

export type ExecutorOptions = {
  readonly keyDir: string;
  readonly clock?: Timers;
  readonly log?: Logger;
  readonly random?: () => number;
  readonly fetch?: typeof fetch;
  /** The shell commands run in; default $SHELL, else /bin/sh. */
  readonly shell?: string;
  /** Where createTempDir/createTempFile create; default <os tmp>/dsh-device-<deviceId>. */
  readonly tempRoot?: string;
  /** The environment commands inherit (before shellEnv); default this process's, minus DSH_DEVICE_*. */
  readonly env?: NodeJS.ProcessEnv;
  readonly reconnectMinMs?: number;
  readonly reconnectMaxMs?: number;
  readonly killGraceMs?: number;
  readonly shutdownGraceMs?: number;
  readonly maxOutputBytesPerStream?: number;
  readonly maxReadBytes?: number;
  readonly maxWriteBytes?: number;
  readonly minFreeBytes?: number;
  readonly maxUnackedChunkBytes?: number;
  readonly maxHeldResults?: number;
  readonly maxResultSends?: number;
  /**
   * H7b: give each command a cgroup of its own where this process may create one (default
   * true); false: find a command's processes through /proc alone.
   */
  readonly cgroups?: boolean;
  /** Observability for tests and hosts: ids, codes and states only. */
  readonly onEvent?: (e: ExecutorEvent) => void;
};

export type ExecutorEvent =
  | { readonly type: 'connecting'; readonly attempt: number }
  | {
      readonly type: 'active';
      readonly gen: string;
      readonly kept: string[];
      readonly killed: string[];
    }
  | { readonly type: 'disconnected'; readonly end: ConnectionEnd }
  | { readonly type: 'instruction'; readonly instructionId: string; readonly kind: string }
  | { readonly type: 'duplicate'; readonly instructionId: string }
  | {
      readonly type: 'settled';
      readonly instructionId: string;
      readonly outcome: Outcome;
      readonly sent: boolean;
    }
  | { readonly type: 'stopping'; readonly reason: DeviceGoodbyeReason };

export const EXECUTOR_EXIT_REASONS = {
  stopped: 'stopped',
  revoked: 'revoked',
  superseded: 'superseded',
  protocol_version_unsupported: 'protocol_version_unsupported',
} as const;
export type ExecutorExitReason = keyof typeof EXECUTOR_EXIT_REASONS;
export type ExecutorExit = { readonly reason: ExecutorExitReason; readonly message: string };

export type ExecutorStatus = {
  readonly connected: boolean;
  readonly gen: string | null;
  readonly running: string[];
  readonly heldResults: number;
};

export type Executor = {
  readonly deviceId: string;
  readonly epoch: string;
  readonly done: Promise<ExecutorExit>;
  /** R15: goodbye, then finish or fail in-flight work, then close. */
  stop(reason?: DeviceGoodbyeReason): Promise<ExecutorExit>;
  status(): ExecutorStatus;
};
