// The lane's records: one per instruction it was asked to run, one per device it has seen, and
// what it needs from a live socket. The modules around the dispatcher share these.
import type { Buffer } from 'node:buffer';
import type { TimerHandle } from '../timers.ts';
import type {
  DeviceInstructionKind,
  DeviceInstructionState,
  DeviceOutcome,
  DeviceOutcomeErrorCode,
  DeviceServerFrame,
} from '../wire/index.ts';
import type { ChunkStream } from './chunk-stream.ts';
import type { OutputQueue } from './output-queue.ts';

/** What the dispatcher needs from a live socket (socket-session.ts provides it). */
export type LaneConn = {
  readonly id: number;
  readonly deviceId: string;
  readonly gen: string;
  readonly epoch: string;
  phase: 'fencing' | 'active' | 'closed';
  goodbye: boolean;
  issuedSeq: number;
  lastFrameAt: number;
  send(frame: DeviceServerFrame): void;
  /** Owes a chunkAck; acks owed in one burst are sent as one, before any other frame. */
  ackChunks(instructionId: string, upToStreamSeq: number): void;
  close(code: number, reason: string): void;
};

export type Audit = (event: string, deviceId: string | null, detail: object) => void;

/** One instruction from dispatch to its one outcome. */
export type Instruction = {
  id: string;
  deviceId: string;
  kind: DeviceInstructionKind;
  args: Record<string, unknown>;
  /** A write's bytes until they are on the wire (then dropped: nothing re-sends them, R1). */
  content: Buffer | undefined;
  sha256: string | undefined;
  cwd: string | undefined;
  shellEnv: Record<string, string> | undefined;
  timeoutMs: number;
  rootSessionId: string;
  state: DeviceInstructionState;
  stream: ChunkStream;
  output: OutputQueue;
  resolve: (o: DeviceOutcome) => void;
  /** timeoutMs + executionGraceMs from the commit. */
  ceilingTimer?: TimerHandle;
  /** R8: a hole in the chunk stream that must fill within chunkGapTimeoutMs. */
  gapTimer?: TimerHandle;
  /** R11: a cancel that must be answered within cancelGraceMs. */
  cancelGraceTimer?: TimerHandle;
  cancelRequested: boolean;
  /** The generation a cancel was last written to (at most once per generation). */
  cancelSentGen?: string;
};

/** What the lane knows about one device across its connections. */
export type DeviceEntry = {
  deviceId: string;
  conn: LaneConn | undefined;
  epoch: string | undefined;
  supports: Set<string>;
  inflight: Map<string, Instruction>;
  queue: Instruction[];
  /** R4: the reconnect grace after the connection went away. */
  reconnectGraceTimer?: TimerHandle;
  online: boolean;
};

export const fail = (errorCode: DeviceOutcomeErrorCode, message: string): DeviceOutcome => ({
  ok: false,
  errorCode,
  message,
});
