// What a host asks the lane to run, and the checks made before anything is queued: a known kind,
// args valid for it (a write's contentLen and sha256 computed from its bytes), a usable timeoutMs,
// and no silent loss of a protective write face (§3.2).
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  DEVICE_INSTRUCTION_KINDS,
  isMember,
  PAYLOAD_INSTRUCTION_KINDS,
  parseInstructionArgs,
  type DeviceInstructionKind,
  type DeviceInstructionState,
  type DeviceOutcome,
  type DeviceOutcomeErrorCode,
} from '../wire/index.ts';
import type { StreamItem } from './chunk-stream.ts';

export type DispatchRequest = {
  kind: DeviceInstructionKind;
  args?: Record<string, unknown>;
  /** The bytes of a write-family instruction; the lane sets args.contentLen and args.sha256. */
  content?: Uint8Array;
  cwd?: string;
  shellEnv?: Record<string, string>;
  timeoutMs?: number;
  rootSessionId?: string;
  /**
   * §3.2: the device's `supports` when the task's environment was built. If the device has since
   * gained a protective write face, an ordinary writeFile is refused rather than written
   * non-atomically (a silent-downgrade hazard).
   */
  environmentSupports?: readonly string[];
};

export type DispatchOutput = AsyncIterable<StreamItem> & {
  onChunk(listener: (item: StreamItem) => void): () => void;
};
export type DispatchHandle = {
  instructionId: string;
  output: DispatchOutput;
  outcome: Promise<DeviceOutcome>;
  state(): DeviceInstructionState;
};

/** A request that passed the checks, ready to become an instruction. */
export type PreparedDispatch = {
  kind: DeviceInstructionKind;
  args: Record<string, unknown>;
  content: Buffer | undefined;
  sha256: string | undefined;
  timeoutMs: number;
};
export type Refusal = { errorCode: DeviceOutcomeErrorCode; message: string };

/** The checks that need no device: kind, args, timeoutMs. */
export const prepareDispatch = (
  req: DispatchRequest,
  defaultTimeoutMs: number,
): { ok: true; value: PreparedDispatch } | ({ ok: false } & Refusal) => {
  if (!isMember(DEVICE_INSTRUCTION_KINDS, req.kind)) {
    return {
      ok: false,
      errorCode: 'invalid',
      message: `unknown instruction kind ${String(req.kind)}`,
    };
  }
  const kind = req.kind;
  const args: Record<string, unknown> = { ...(req.args ?? {}) };
  let content: Buffer | undefined;
  let sha256: string | undefined;
  if (PAYLOAD_INSTRUCTION_KINDS.has(kind)) {
    content = Buffer.from(req.content ?? new Uint8Array(0));
    sha256 = createHash('sha256').update(content).digest('hex');
    args.contentLen = content.length;
    args.sha256 = sha256;
  }
  const parsed = parseInstructionArgs(kind, args);
  if (!parsed.ok) return { ok: false, errorCode: 'invalid', message: parsed.message };
  const timeoutMs = req.timeoutMs ?? defaultTimeoutMs;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    return { ok: false, errorCode: 'invalid', message: 'timeoutMs must be a positive integer' };
  }
  return { ok: true, value: { kind, args, content, sha256, timeoutMs } };
};

const PROTECTIVE_WRITE_FACES = ['writeFileExclusive', 'writeFileGuarded'] as const;

/** §3.2: the protective write faces the device declares now but did not when `req`'s environment was built. */
export const protectiveFacesGained = (
  req: DispatchRequest,
  supports: ReadonlySet<string>,
): string[] => {
  if (req.kind !== 'writeFile' || req.environmentSupports === undefined) return [];
  const built = new Set(req.environmentSupports);
  return PROTECTIVE_WRITE_FACES.filter((f) => supports.has(f) && !built.has(f));
};
