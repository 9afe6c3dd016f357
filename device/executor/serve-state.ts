// What the parts of a serving executor share: the task table, the instruction ids of this epoch,
// and where the executor stands (connected, stopping, exited).
import type { DeviceGoodbyeReason } from '../wire/index.ts';
import type { Connection } from './connection.ts';
import type { Task } from './task.ts';

export type ServeState = {
  /** Instructions running now, by id. */
  readonly tasks: Map<string, Task>;
  /** X6: every instruction id of this epoch; a repeat is never run. */
  readonly seen: Set<string>;
  readonly cancelled: Set<string>;
  /** Tasks the fence killed: nothing more is ever sent for them (§1.5). */
  readonly writtenOff: Set<string>;
  conn: Connection | null;
  /** Set by stop(): the goodbye reason (R15). */
  stopping: DeviceGoodbyeReason | null;
  exited: boolean;
  /** Cuts the reconnect wait short (stop() while disconnected). */
  wake: (() => void) | null;
};

export const makeServeState = (): ServeState => ({
  tasks: new Map(),
  seen: new Set(),
  cancelled: new Set(),
  writtenOff: new Set(),
  conn: null,
  stopping: null,
  exited: false,
  wake: null,
});
