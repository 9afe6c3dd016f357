// The lane's books: every instruction not yet settled, the memo of settled ones (§2.4), and one
// entry per device. Every path to a terminal state goes through settle(), so each instruction
// gets exactly one outcome; pump() moves queued instructions across the one-way commit (R1).
import type { DeviceInstructionState, DeviceOutcome } from '../wire/index.ts';
import {
  fail,
  type Audit,
  type DeviceEntry,
  type Instruction,
  type LaneConn,
} from './instruction.ts';
import { makeSettledMemo } from './memo.ts';
import type { LaneConfig } from './options.ts';
import { writeInstruction } from './write-instruction.ts';

export const makeInstructionBook = (config: LaneConfig, audit: Audit) => {
  const unsettled = new Map<string, Instruction>();
  const memo = makeSettledMemo(config.settledMemoEntries);
  const devices = new Map<string, DeviceEntry>();
  let draining = false;

  const deviceEntry = (deviceId: string): DeviceEntry => {
    let entry = devices.get(deviceId);
    if (entry === undefined) {
      entry = {
        deviceId,
        conn: undefined,
        epoch: undefined,
        supports: new Set(),
        inflight: new Map(),
        queue: [],
        online: false,
      };
      devices.set(deviceId, entry);
    }
    return entry;
  };
  /** Tells the host when a device becomes dispatchable or stops being so (edges only). */
  const setOnline = (device: DeviceEntry, online: boolean) => {
    if (device.online === online) return;
    device.online = online;
    config.onDeviceState?.(device.deviceId, online);
  };
  const activeConn = (device: DeviceEntry): LaneConn | undefined =>
    device.conn !== undefined && device.conn.phase === 'active' ? device.conn : undefined;

  const cancelTimers = (instruction: Instruction) => {
    for (const t of [instruction.ceilingTimer, instruction.gapTimer, instruction.cancelGraceTimer])
      if (t) config.clock.clearTimeout(t);
    instruction.ceilingTimer = instruction.gapTimer = instruction.cancelGraceTimer = undefined;
  };
  const settle = (
    instruction: Instruction,
    outcome: DeviceOutcome,
    state: DeviceInstructionState = 'terminal',
  ) => {
    if (!unsettled.has(instruction.id)) return;
    cancelTimers(instruction);
    unsettled.delete(instruction.id);
    const device = deviceEntry(instruction.deviceId);
    device.inflight.delete(instruction.id);
    const queued = device.queue.indexOf(instruction);
    if (queued >= 0) device.queue.splice(queued, 1);
    instruction.state = state;
    memo.add(instruction.id, instruction.deviceId);
    instruction.output.end();
    instruction.resolve(outcome);
    if (!outcome.ok && outcome.errorCode === 'outcome_unknown') {
      audit('instruction_outcome_unknown', instruction.deviceId, {
        instructionId: instruction.id,
        message: outcome.message,
      });
    }
    pump(device);
  };
  const settleUnknown = (instruction: Instruction, message: string) =>
    settle(instruction, fail('outcome_unknown', message));

  const pump = (device: DeviceEntry) => {
    const conn = activeConn(device);
    if (conn === undefined || conn.goodbye || draining) return;
    while (device.inflight.size < config.maxInflight && device.queue.length > 0) {
      const instruction = device.queue.shift() as Instruction;
      if (!device.supports.has(instruction.kind)) {
        settle(
          instruction,
          fail('not_supported', `the device does not declare ${instruction.kind}`),
          'terminal_never_started',
        );
        continue;
      }
      commit(device, conn, instruction);
    }
  };

  /** §5.0: the one-way commit is crossed before the first byte reaches the socket (R1). */
  const commit = (device: DeviceEntry, conn: LaneConn, instruction: Instruction) => {
    instruction.state = 'dispatch_committed';
    device.inflight.set(instruction.id, instruction);
    instruction.ceilingTimer = config.clock.setTimeout(
      () =>
        settleUnknown(
          instruction,
          `no terminal result within timeoutMs + ${config.executionGraceMs} ms (execution ceiling)`,
        ),
      instruction.timeoutMs + config.executionGraceMs,
    );
    writeInstruction(conn, instruction, config.payloadPartBytes);
  };

  return {
    unsettled,
    memo,
    devices,
    deviceEntry,
    setOnline,
    activeConn,
    settle,
    settleUnknown,
    pump,
    get draining() {
      return draining;
    },
    startDraining() {
      draining = true;
    },
  };
};
export type InstructionBook = ReturnType<typeof makeInstructionBook>;
