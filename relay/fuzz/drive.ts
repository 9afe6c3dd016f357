// Drives sockets through hostile frames and compares every reply and close with the oracle
// (frames.ts). Used by the small fuzz test and the fuzz at scale; returns mismatches as text
// instead of asserting, so the runner can count them and the test can assert there are none.
import { connectClient } from '../test-support/ws-client.ts';
import { hostile, label, postHelloOracle, preHelloOracle, prng, type Rng } from './frames.ts';

export type Role = 'machine' | 'phone';
/** Frames sent, mismatches with the oracle, and how often each reply or close was expected. */
export type Driven = { frames: number; mismatches: string[]; expected: Map<string, number> };

const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

// Apart from the rooms of the sockets after hello (below): first frames run alongside them, and
// a first-frame hello must not send presence into a room whose replies are being counted.
const PRE_HELLO_POOL = [
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'fuzzroom-1',
  'fuzzroom-2',
];

const describeFrame = (h: { label: string; data: Buffer }) =>
  `${h.label} (${h.data.length} bytes: ${h.data.subarray(0, 60).toString('latin1')}…)`;

/** One hostile frame as the first frame of a fresh socket; `expected` counts what the oracle said. */
export async function preHelloFrame(
  url: string,
  r: Rng,
  expected: Map<string, number>,
): Promise<string | null> {
  const h = hostile(r, PRE_HELLO_POOL, r.pick(['machine', 'phone'] as const));
  const c = await connectClient(url);
  const want = preHelloOracle(h);
  for (const k of want.replies) count(expected, k);
  if (want.close !== undefined) count(expected, `close:${want.close}`);
  c.send(h.data, { binary: h.binary });
  try {
    for (const reply of want.replies) {
      const got = label(await c.nextFrame());
      if (got !== reply) return `before hello, ${describeFrame(h)}: got ${got}, want ${reply}`;
    }
    if (want.close !== undefined) {
      const { code } = await c.closed;
      if (code !== want.close)
        return `before hello, ${describeFrame(h)}: closed ${code}, want ${want.close}`;
    } else await c.close();
    return null;
  } catch (e) {
    await c.close();
    return `before hello, ${describeFrame(h)}: ${(e as Error).message}`;
  }
}

/**
 * One socket (socket number `s`, role by parity) sends `frames` hostile frames after its hello,
 * each followed by a probe (a repeated hello, answered hello-ok) so that frame's replies are read
 * exactly; a frame the rules close on is followed by a fresh socket. Machines and phones never
 * share a room, so no presence crosses between fuzz sockets. Stops early past `deadline` (ms).
 */
export async function postHelloSocket(
  url: string,
  s: number,
  seed: number,
  frames: number,
  deadline = Infinity,
): Promise<Driven> {
  const role: Role = s % 2 === 0 ? 'machine' : 'phone';
  const rs = prng(seed + s + 1);
  const rooms =
    role === 'machine'
      ? ['__proto__', 'constructor', `own-m-${s}-xyz`, `m-shared-room`]
      : ['prototype', 'toString', `own-p-${s}-xyz`, `p-shared-room`];
  const home = `home-${role}-${s}-xyz`;
  const mismatches: string[] = [];
  const expected = new Map<string, number>();
  let c = await connectClient(url);
  let joined = new Map<string, string>([[home, role]]);
  await c.hello(home, role);
  let sent = 0;
  for (; sent < frames && Date.now() <= deadline; sent++) {
    const h = hostile(rs, [...rooms, home], role);
    const want = await postHelloOracle(h, joined);
    for (const k of want.replies) count(expected, k);
    if (want.close !== undefined) count(expected, `close:${want.close}`);
    c.send(h.data, { binary: h.binary });
    try {
      if (want.close !== undefined) {
        const { code } = await c.closed;
        if (code !== want.close)
          mismatches.push(`after hello, ${describeFrame(h)}: closed ${code}, want ${want.close}`);
      } else {
        c.send({ kind: 'hello', room: home, role });
        const got: string[] = [];
        for (let k = 0; k < want.replies.length + 1; k++) got.push(label(await c.nextFrame()));
        const [g, w] = [[...got].sort().join(','), [...want.replies, 'hello-ok'].sort().join(',')];
        if (g !== w) mismatches.push(`after hello, ${describeFrame(h)}: got ${g}, want ${w}`);
        continue;
      }
    } catch (e) {
      mismatches.push(`after hello, ${describeFrame(h)}: ${(e as Error).message}`);
    }
    // Closed as the rules say, or broken: go on with a fresh socket.
    await c.close();
    c = await connectClient(url);
    joined = new Map([[home, role]]);
    await c.hello(home, role);
  }
  await c.close();
  return { frames: sent, mismatches, expected };
}
