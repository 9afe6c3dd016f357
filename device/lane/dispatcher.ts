// The lane's dispatcher: the host's dispatch and cancel, and the socket session's events, over one
// set of books. Each job lives in its own module: the request checks (dispatch-request.ts), the
// books and the commit (instruction-book.ts), cancel (cancellation.ts), result and chunk frames
// (frame-admission.ts), and a device's connections (device-connections.ts).
import { mintInstructionId, type DeviceOutcome } from '../wire/index.ts';
import { makeCancellation } from './cancellation.ts';
import { makeChunkStream } from './chunk-stream.ts';
import { makeDeviceConnections } from './device-connections.ts';
import {
  prepareDispatch,
  protectiveFacesGained,
  type DispatchHandle,
  type DispatchRequest,
  type Refusal,
} from './dispatch-request.ts';
import { makeFrameAdmission } from './frame-admission.ts';
import { makeInstructionBook } from './instruction-book.ts';
import { fail, type Audit, type Instruction } from './instruction.ts';
import type { LaneConfig } from './options.ts';
import { makeOutputQueue } from './output-queue.ts';
import type { Registry } from './registry.ts';

export type { DispatchHandle, DispatchOutput, DispatchRequest } from './dispatch-request.ts';
export type { Audit, LaneConn } from './instruction.ts';

/** A dispatch refused before anything was queued: it never started, and says why. */
const neverStarted = ({ errorCode, message }: Refusal): DispatchHandle => {
  const output = makeOutputQueue();
  output.end();
  return {
    instructionId: mintInstructionId(),
    output,
    outcome: Promise.resolve(fail(errorCode, message)),
    state: () => 'terminal_never_started',
  };
};

export const makeDispatcher = (deps: { config: LaneConfig; registry: Registry; audit: Audit }) => {
  const { config, registry, audit } = deps;
  const book = makeInstructionBook(config, audit);
  const cancellation = makeCancellation(book, config);
  const frames = makeFrameAdmission(book, config, audit);
  const connections = makeDeviceConnections({ book, cancellation, config, registry, audit });

  const dispatch = (deviceId: string, req: DispatchRequest): DispatchHandle => {
    const prepared = prepareDispatch(req, config.defaultTimeoutMs);
    if (!prepared.ok) return neverStarted(prepared);
    const { kind, args, content, sha256, timeoutMs } = prepared.value;
    const enrolled = registry.getDevice(deviceId);
    if (enrolled === undefined || enrolled.revokedAt !== null) {
      return neverStarted({
        errorCode: 'target_unavailable',
        message: `device ${deviceId} is not enrolled or was revoked`,
      });
    }
    const device = book.deviceEntry(deviceId);
    // A connection still fencing (helloAck sent, generationAck not yet) queues: R10 holds the
    // commit back until the ack, not the host's request.
    const conn =
      device.conn !== undefined && device.conn.phase !== 'closed' ? device.conn : undefined;
    if (book.draining || conn === undefined || conn.goodbye) {
      return neverStarted({
        errorCode: 'target_unavailable',
        message: `device ${deviceId} is not connected`,
      });
    }
    if (!device.supports.has(kind)) {
      return neverStarted({
        errorCode: 'not_supported',
        message: `the device does not declare ${kind}`,
      });
    }
    const gained = protectiveFacesGained(req, device.supports);
    if (gained.length > 0) {
      audit('protective_face_gained', deviceId, { gained });
      return neverStarted({
        errorCode: 'precondition_failed',
        message: `the device gained ${gained.join(', ')} since this environment was built; refusing a non-atomic writeFile (§3.2)`,
      });
    }
    let resolve!: (o: DeviceOutcome) => void;
    const outcome = new Promise<DeviceOutcome>((res) => (resolve = res));
    const instruction: Instruction = {
      id: mintInstructionId(),
      deviceId,
      kind,
      args,
      content,
      sha256,
      cwd: req.cwd,
      shellEnv: req.shellEnv,
      timeoutMs,
      rootSessionId: req.rootSessionId ?? '',
      state: 'queued',
      stream: makeChunkStream({
        maxEntries: config.reorderMaxEntries,
        maxBytes: config.reorderMaxBytes,
      }),
      output: makeOutputQueue(
        { maxBytes: config.outputMaxBytes, maxEntries: config.outputMaxEntries },
        () => {
          audit('output_overflow', deviceId, { instructionId: instruction.id });
          cancellation.cancel(instruction.id);
        },
      ),
      resolve,
      cancelRequested: false,
    };
    book.unsettled.set(instruction.id, instruction);
    device.queue.push(instruction);
    book.pump(device);
    return {
      instructionId: instruction.id,
      output: instruction.output,
      outcome,
      state: () => instruction.state,
    };
  };

  return {
    dispatch,
    cancel: cancellation.cancel,
    ...connections,
    onResult: frames.onResult,
    onChunk: frames.onChunk,
    currentConn: (deviceId: string) => book.devices.get(deviceId)?.conn,
    epochOf: (deviceId: string) => book.devices.get(deviceId)?.epoch,
    supportsOf: (deviceId: string) => [...(book.devices.get(deviceId)?.supports ?? [])],
    inflightCount: (deviceId: string) => book.devices.get(deviceId)?.inflight.size ?? 0,
    get draining() {
      return book.draining;
    },
  };
};
export type Dispatcher = ReturnType<typeof makeDispatcher>;
