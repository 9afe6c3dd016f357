/**
 * §2.4 the settled memo: the most recent N settled instruction ids (insertion order = settle
 * order). A late `result` that hits it gets a bare `resultAck`; a late `chunk` is ignored.
 */
export const makeSettledMemo = (maxEntries: number) => {
  const m = new Map<string, { deviceId: string }>();
  return {
    add(instructionId: string, deviceId: string) {
      m.delete(instructionId);
      m.set(instructionId, { deviceId });
      while (m.size > maxEntries) m.delete(m.keys().next().value as string);
    },
    get: (instructionId: string) => m.get(instructionId),
    get size() {
      return m.size;
    },
  };
};
export type SettledMemo = ReturnType<typeof makeSettledMemo>;
