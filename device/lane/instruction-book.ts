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

  const cancelTimers = (i: Instruction) => {
    for (const t of [i.ceilingTimer, i.gapTimer, i.cancelGraceTimer]) t?.cancel();
    i.ceilingTimer = i.gapTimer = i.cancelGraceTimer = undefined;
  };
  const settle = (
    i: Instruction,
    outcome: DeviceOutcome,
    state: DeviceInstructionState = 'terminal',
  ) => {
    if (!unsettled.has(i.id)) return;
    cancelTimers(i);
    unsettled.delete(i.id);
    const device = deviceEntry(i.deviceId);
    device.inflight.delete(i.id);
    const queued = device.queue.indexOf(i);
    if (queued >= 0) device.queue.splice(queued, 1);
    i.state = state;
    memo.add(i.id, i.deviceId);
    i.output.end();
    i.resolve(outcome);
    if (!outcome.ok && outcome.errorCode === 'outcome_unknown') {
      audit('instruction_outcome_unknown', i.deviceId, {
        instructionId: i.id,
        message: outcome.message,
      });
    }
    pump(device);
  };
  const settleUnknown = (i: Instruction, message: string) =>
    settle(i, fail('outcome_unknown', message));

  const pump = (device: DeviceEntry) => {
    const conn = activeConn(device);
    if (conn === undefined || conn.goodbye || draining) return;
    while (device.inflight.size < config.maxInflight && device.queue.length > 0) {
      const i = device.queue.shift() as Instruction;
      if (!device.supports.has(i.kind)) {
        settle(
          i,
          fail('not_supported', `the device does not declare ${i.kind}`),
          'terminal_never_started',
        );
        continue;
      }
      commit(device, conn, i);
    }
  };

  /** §5.0: the one-way commit is crossed before the first byte reaches the socket (R1). */
  const commit = (device: DeviceEntry, conn: LaneConn, i: Instruction) => {
    i.state = 'dispatch_committed';
    device.inflight.set(i.id, i);
    i.ceilingTimer = config.clock.after(i.timeoutMs + config.executionGraceMs, () =>
      settleUnknown(
        i,
        `no terminal result within timeoutMs + ${config.executionGraceMs} ms (execution ceiling)`,
      ),
    );
    writeInstruction(conn, i, config.payloadPartBytes);
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
