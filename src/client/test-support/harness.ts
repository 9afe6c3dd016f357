// A phone client wired to fake sockets, fake timers and in-memory storage, plus a "machine"
// that seals messages with the real room key — so the tests exercise the real crypto and the
// real parsers, and only the network and the clock are simulated.
import {
  encodePairing,
  open,
  parsePairing,
  roomKeys,
  seal,
  toBase64Url,
  type Pairing,
} from '../../../protocol/index.ts';
import { makeClient } from '../client.ts';
import { makeMemoryKv, type Kv } from '../kv.ts';
import { makeManualTimers, type ManualTimers } from '../../../testkit/manual-clock.ts';
import { makeSocketFactory, type FakeSocket } from './fakes.ts';

export const RELAY = 'ws://127.0.0.1:9';

/** E9: `boxKey` is the machine key the code carries (absent: a code from before E9). */
export function pairingFor(
  machine: string,
  fill: number,
  relay = RELAY,
  boxKey?: Uint8Array,
): Pairing {
  const secret = toBase64Url(new Uint8Array(32).fill(fill));
  const key = boxKey ? { boxKey: toBase64Url(boxKey) } : {};
  const parsed = parsePairing(encodePairing({ v: 1, relay, secret, machine, ...key }));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}

export function makeHarness(
  options: {
    kv?: Kv;
    clock?: ManualTimers;
    deps?: Partial<Parameters<typeof makeClient>[0]>;
  } = {},
) {
  const clock = options.clock ?? makeManualTimers();
  const kv = options.kv ?? makeMemoryKv();
  const sockets = makeSocketFactory();
  const logs: string[] = [];
  let n = 0;
  const client = makeClient({
    kv,
    socket: sockets.factory,
    timers: clock,
    now: clock.now,
    random: () => 0.5,
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    log: (l) => logs.push(l),
    ...options.deps,
  });
  return { client, clock, kv, sockets, logs };
}

/** The machine end of one room: seals what it says, opens what the phone sent. */
export function machineOf(pairing: Pairing) {
  const { roomId, key } = roomKeys(pairing.secretBytes);
  return {
    roomId,
    key,
    say(ws: FakeSocket, message: Record<string, unknown>) {
      ws.receive({ kind: 'msg', room: roomId, payload: seal({ v: 1, ts: 0, ...message }, key) });
    },
    /** The phone messages this room received on a socket, decrypted (E9: unwrapped). */
    heard(ws: FakeSocket): Record<string, unknown>[] {
      return this.heardRaw(ws).map((m) =>
        m.type === 'phone.sealed'
          ? (JSON.parse(m.message as string) as Record<string, unknown>)
          : m,
      );
    },
    /** As they came: E9's `phone.sealed` wrappers included. */
    heardRaw(ws: FakeSocket): Record<string, unknown>[] {
      return ws
        .frames()
        .filter((f) => f.kind === 'msg' && f.room === roomId)
        .map((f) => {
          const opened = open(f.payload as string, key);
          if (!opened.ok) throw new Error(opened.code);
          return opened.value as Record<string, unknown>;
        });
    },
  };
}

/** Opens the newest socket and answers every hello so far with hello-ok. */
export function connect(ws: FakeSocket, machines = 1) {
  ws.open();
  for (const f of ws.frames())
    if (f.kind === 'hello')
      ws.receive({ kind: 'hello-ok', peers: { machine: machines, phone: 1 } });
}

export const flush = () => new Promise<void>((r) => setTimeout(r, 0));

/**
 * Pairs the started client with `pairing`, opens its socket (hello-ok), lets the machine say
 * `status` and waits for the client to act on it: the usual first minute of a test.
 */
export async function pairAndJoin(
  client: { pair(p: Pairing): Promise<unknown> },
  sockets: { last(): FakeSocket },
  pairing: Pairing,
  status: Record<string, unknown>,
) {
  const m = machineOf(pairing);
  await client.pair(pairing);
  const ws = sockets.last();
  connect(ws);
  m.say(ws, status);
  await flush();
  return { m, ws };
}
