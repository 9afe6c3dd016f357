// D11: the machine refuses phone actions whose `ts` is more than 5 minutes from its own clock,
// so the phone stamps every message with its clock corrected by the offset it measured from
// that machine's last `machine.status.ts`. Offsets are per machine: machines disagree too.
export type Clock = {
  /** Local wall clock (ms). */
  now(): number;
  /** The given machine's clock as best we know it (ms). */
  machineNow(roomId: string): number;
  /** Records the offset seen in a `machine.status` that arrived now. */
  observe(roomId: string, machineTs: number): void;
  offsetMs(roomId: string): number;
};

export function makeClock(now: () => number = Date.now): Clock {
  const offsets = new Map<string, number>();
  return {
    now,
    machineNow: (roomId) => now() + (offsets.get(roomId) ?? 0),
    observe: (roomId, machineTs) => {
      if (Number.isFinite(machineTs)) offsets.set(roomId, machineTs - now());
    },
    offsetMs: (roomId) => offsets.get(roomId) ?? 0,
  };
}
