// A seeded generator for tests whose moments are random on purpose (the kill -9 trials): a fresh
// seed each run keeps exploring, and the seed a failure prints replays the same moments.

/** mulberry32: uniform in [0, 1), the same sequence for the same 32-bit seed. */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/**
 * The seed from `envName` when set (a replay), otherwise a new random one. Throws on a value that
 * is not a 32-bit unsigned integer, so a mistyped replay does not silently explore instead.
 */
export const seedFromEnv = (envName: string): number => {
  const text = process.env[envName];
  if (text === undefined || text === '') return Math.floor(Math.random() * 2 ** 32);
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(`${envName} must be an integer in [0, 2^32), got "${text}"`);
  }
  return seed;
};
