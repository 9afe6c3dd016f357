// A device's connections as the dispatcher sees them: a verified hello binds the device's
// in-flight work to the new generation (R2) or abandons it on a new epoch (R3); generationAck opens
// dispatch (R10); goodbye stops new work (R15); a lost socket starts the reconnect grace (R4); and
// revoke, takeover and drain tell the socket why with `bye` (R13) and close the books.
import type { Cancellation } from './cancellation.ts';
import type { InstructionBook } from './instruction-book.ts';
import { fail, type Audit, type DeviceEntry, type LaneConn } from './instruction.ts';
import type { LaneConfig } from './options.ts';
import type { Registry } from './registry.ts';
import { DEVICE_INSTRUCTION_KINDS, isMember } from '../wire/index.ts';

export const makeDeviceConnections = (deps: {
  book: InstructionBook;
  cancellation: Cancellation;
  config: LaneConfig;
  registry: Registry;
  audit: Audit;
}) => {
  const { book, cancellation, config, registry, audit } = deps;

  /**
   * A verified hello for `deviceId`: R3 (a new epoch abandons everything in flight, before
   * helloAck) or R2 (same epoch: the in-flight set is re-bound to the new generation).
   */
  const onHelloAccepted = (conn: LaneConn, supports: string[]) => {
    const device = book.deviceEntry(conn.deviceId);
    if (device.reconnectGraceTimer) config.clock.clearTimeout(device.reconnectGraceTimer);
    device.reconnectGraceTimer = undefined;
    if (device.epoch !== undefined && device.epoch !== conn.epoch) {
      for (const instruction of [...device.inflight.values()]) {
        book.settleUnknown(
          instruction,
          'the executor restarted (new epoch); the instruction may have run (R3)',
        );
      }
    }
    device.epoch = conn.epoch;
    device.conn = conn;
    device.supports = new Set(supports.filter((s) => isMember(DEVICE_INSTRUCTION_KINDS, s)));
    const chunkWatermarks: Record<string, number> = {};
    for (const instruction of device.inflight.values()) {
      chunkWatermarks[instruction.id] = instruction.stream.watermark;
      instruction.cancelSentGen = undefined;
    }
    return { pendingInstructions: [...device.inflight.keys()], chunkWatermarks };
  };

  /** R10: dispatch starts only now; cancels written to a dropped socket are replayed (R11). */
  const onGenerationAck = (conn: LaneConn) => {
    const device = book.deviceEntry(conn.deviceId);
    for (const instruction of device.inflight.values())
      if (instruction.cancelRequested) cancellation.sendCancel(instruction);
    book.setOnline(device, true);
    book.pump(device);
  };

  const onGoodbye = (conn: LaneConn) => {
    conn.goodbye = true;
    book.setOnline(book.deviceEntry(conn.deviceId), false);
  };

  /** The current connection went away: R4's reconnect grace starts. */
  const onConnClosed = (conn: LaneConn) => {
    const device = book.devices.get(conn.deviceId);
    if (device === undefined || device.conn !== conn) return;
    device.conn = undefined;
    book.setOnline(device, false);
    if (device.reconnectGraceTimer) config.clock.clearTimeout(device.reconnectGraceTimer);
    device.reconnectGraceTimer = config.clock.setTimeout(() => {
      device.reconnectGraceTimer = undefined;
      writeOff(device, `no reconnect within ${config.reconnectGraceMs} ms (R4)`);
    }, config.reconnectGraceMs);
  };

  const writeOff = (device: DeviceEntry, why: string) => {
    for (const instruction of [...device.inflight.values()])
      book.settleUnknown(instruction, `${why}; the instruction may have run`);
    for (const instruction of [...device.queue])
      book.settle(
        instruction,
        fail('target_unavailable', `${why}; the instruction never started`),
        'terminal_never_started',
      );
  };

  /** R13 `bye`: tell the socket why, then close it. */
  const bye = (conn: LaneConn, reason: 'revoked' | 'draining' | 'superseded') => {
    conn.send({ t: 'bye', gen: conn.gen, reason });
    audit('bye', conn.deviceId, { reason, gen: conn.gen });
    conn.close(1000, reason);
  };

  /** Takes the device's connection away from it (it is no longer dispatchable). */
  const detach = (device: DeviceEntry): LaneConn | undefined => {
    const conn = device.conn;
    device.conn = undefined;
    book.setOnline(device, false);
    return conn;
  };

  const revoke = (deviceId: string): boolean => {
    const changed = registry.revoke(deviceId, config.now());
    const device = book.devices.get(deviceId);
    if (device !== undefined) {
      const conn = detach(device);
      if (conn !== undefined) bye(conn, 'revoked');
      writeOff(device, 'the device was revoked');
    }
    if (changed) audit('device_revoked', deviceId, {});
    return changed;
  };

  /** A takeover: the old socket is told `superseded`; its in-flight work follows R2/R3 in onHelloAccepted. */
  const supersede = (old: LaneConn) => {
    const device = book.devices.get(old.deviceId);
    if (device !== undefined && device.conn === old) detach(device);
    bye(old, 'superseded');
  };

  const drain = () => {
    book.startDraining();
    for (const device of book.devices.values()) {
      const conn = detach(device);
      if (device.reconnectGraceTimer) config.clock.clearTimeout(device.reconnectGraceTimer);
      if (conn !== undefined) bye(conn, 'draining');
      writeOff(device, 'the lane is draining');
    }
  };

  return {
    onHelloAccepted,
    onGenerationAck,
    onGoodbye,
    onConnClosed,
    revoke,
    supersede,
    drain,
  };
};
