import type {
  DeviceByeReason,
  DeviceCancelState,
  DeviceChunkKind,
  DeviceFileKind,
  DeviceGoodbyeReason,
  DeviceHelloRejectCode,
  DeviceInstructionKind,
  DeviceOutcomeErrorCode,
  DevicePayloadPart,
} from './closed-sets.ts';

/** `gen` travels as a canonical decimal string (a 64-bit database value, §1.5). */
export type Gen = string;

// ---- outcomes (§3.3) ----
export type WireFileInfo = {
  path: string;
  kind: DeviceFileKind;
  size: number;
  mtimeMs: number;
  mode?: number;
};
export type ExecOutcome = {
  ok: true;
  kind: 'exec';
  exitCode: number;
  truncated?: { stdout?: boolean; stderr?: boolean };
};
export type ReadOutcome = { ok: true; kind: 'read' };
export type StatOutcome = {
  ok: true;
  kind: 'stat';
  info?: WireFileInfo;
  entries?: WireFileInfo[];
  existsValue?: boolean;
  canonicalPath?: string;
  linkTarget?: string | null;
};
export type WriteOutcome = {
  ok: true;
  kind: 'write';
  canonicalPath: string;
  inode?: string;
  created?: boolean;
};
export type VoidOutcome = { ok: true; kind: 'void' };
export type CancelledOutcome = { ok: true; kind: 'cancelled'; state: DeviceCancelState };
export type FailureOutcome = { ok: false; errorCode: DeviceOutcomeErrorCode; message: string };
export type DeviceOutcome =
  | ExecOutcome
  | ReadOutcome
  | StatOutcome
  | WriteOutcome
  | VoidOutcome
  | CancelledOutcome
  | FailureOutcome;

// ---- device → server (§2.2) ----
export type HelloFrame = {
  t: 'hello';
  protocolVersion: number;
  deviceId: string;
  epoch: string;
  signatureB64: string;
  platform: { os: string; arch: string; executorVersion: string };
  workspaceRoot: string;
  pathFlavor: string;
  supports: string[];
  resuming?: { unackedResults: number };
};
export type GenerationAckFrame = { t: 'generationAck'; gen: Gen };
export type HeartbeatFrame = { t: 'heartbeat'; gen: Gen; seq: number; inflight: string[] };
export type ResultFrame = {
  t: 'result';
  gen: Gen;
  instructionId: string;
  deviceSeq: number;
  outcome: DeviceOutcome;
};
export type ChunkFrame = {
  t: 'chunk';
  gen: Gen;
  instructionId: string;
  streamSeq: number;
  kind: DeviceChunkKind;
  dataB64?: string;
  exitCode?: number;
};
export type GoodbyeFrame = {
  t: 'goodbye';
  gen: Gen;
  reason: DeviceGoodbyeReason;
  graceMs?: number;
};
export type DeviceFrame =
  HelloFrame | GenerationAckFrame | HeartbeatFrame | ResultFrame | ChunkFrame | GoodbyeFrame;

// ---- server → device (§2.3) ----
export type ChallengeFrame = { t: 'challenge'; nonce: string; protocolVersion: number };
export type HelloAckFrame = {
  t: 'helloAck';
  ok: true;
  heartbeatIntervalMs: number;
  maxInflight: number;
  gen: Gen;
  pendingInstructions: string[];
  chunkWatermarks: Record<string, number>;
};
export type HelloRejectFrame = {
  t: 'helloReject';
  code: DeviceHelloRejectCode;
  minProtocolVersion?: number;
};
export type DeviceInstructionFrame = {
  t: 'instruction';
  gen: Gen;
  instructionId: string;
  rootSessionId: string;
  issuedSeq: number;
  kind: DeviceInstructionKind;
  args: Record<string, unknown>;
  cwd?: string;
  shellEnv?: Record<string, string>;
  timeoutMs: number;
};
export type PayloadFrame = {
  t: 'payload';
  gen: Gen;
  instructionId: string;
  part: DevicePayloadPart;
  offset?: number;
  dataB64?: string;
  totalLen?: number;
  sha256?: string;
};
export type CancelFrame = { t: 'cancel'; gen: Gen; instructionId: string };
export type ResultAckFrame = { t: 'resultAck'; gen: Gen; instructionId: string };
export type ChunkAckFrame = {
  t: 'chunkAck';
  gen: Gen;
  instructionId: string;
  upToStreamSeq: number;
};
export type ByeFrame = { t: 'bye'; gen: Gen; reason: DeviceByeReason };
export type PingFrame = { t: 'ping' };
export type DeviceServerFrame =
  | ChallengeFrame
  | HelloAckFrame
  | HelloRejectFrame
  | DeviceInstructionFrame
  | PayloadFrame
  | CancelFrame
  | ResultAckFrame
  | ChunkAckFrame
  | ByeFrame
  | PingFrame;
