import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { WebSocket } from 'ws';
import {
  DEVICE_HTTP_PATHS,
  DEVICE_INSTRUCTION_KINDS,
  DEVICE_PROTOCOL_VERSION,
  encodeBase64,
  mintEpoch,
  parseServerFrame,
  rawEd25519PublicKey,
  signHello,
  type ChallengeFrame,
  type DeviceServerFrame,
  type HelloAckFrame,
  type HelloFrame,
} from '../wire/index.ts';

// A scripted device built only from device/wire, ws and node:crypto: it does exactly what a test
// tells it, frame by frame, so the lane's rules can be probed one at a time. Reusable by the
// executor's tests as a peer or a reference.

export type DeviceIdentity = { deviceId: string; privateKey: KeyObject; pubkeyB64: string };

export const makeKeypair = () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  return { privateKey, pubkeyB64: encodeBase64(rawEd25519PublicKey(privateKey)) };
};

export const postJson = async (
  url: string,
  body: unknown,
  bearer?: string,
): Promise<{ status: number; text: string; json: unknown; headers: Headers }> => {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON: left undefined */
  }
  return { status: res.status, text, json, headers: res.headers };
};

/** Issues a token and registers a fresh keypair over the real HTTP plane. */
export const enrollTestDevice = async (
  httpUrl: string,
  bearer: string,
  extra: { workspaceRoot?: string; platformOs?: string } = {},
): Promise<DeviceIdentity> => {
  const issued = await postJson(httpUrl + DEVICE_HTTP_PATHS.enrollTokens, {}, bearer);
  if (issued.status !== 200)
    throw new Error(`enroll-tokens answered ${issued.status} ${issued.text}`);
  const { token } = issued.json as { token: string };
  const kp = makeKeypair();
  const r = await postJson(
    httpUrl + DEVICE_HTTP_PATHS.enroll,
    {
      token,
      pubkey: kp.pubkeyB64,
      platformOs: extra.platformOs ?? 'linux',
      workspaceRoot: extra.workspaceRoot ?? '/tmp/ws',
    },
    bearer,
  );
  if (r.status !== 200) throw new Error(`enroll answered ${r.status} ${r.text}`);
  return { deviceId: (r.json as { deviceId: string }).deviceId, ...kp };
};

export const ALL_KINDS = Object.keys(DEVICE_INSTRUCTION_KINDS);

export type TestDevice = Awaited<ReturnType<typeof connectTestDevice>>;

export const connectTestDevice = async (
  wsUrl: string,
  identity: DeviceIdentity | undefined,
  opts: { epoch?: string; waitMs?: number } = {},
) => {
  const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
  const frames: DeviceServerFrame[] = [];
  const waiters: {
    pred: (f: DeviceServerFrame) => boolean;
    resolve: (f: DeviceServerFrame) => void;
  }[] = [];
  const errors: string[] = [];
  let closeInfo: { code: number; reason: string } | undefined;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      closeInfo = { code, reason: reason.toString() };
      resolve(closeInfo);
    });
  });
  ws.on('error', (e) => errors.push(String(e)));
  ws.on('message', (data: Buffer) => {
    const parsed = parseServerFrame(data.toString('utf8'));
    if (!parsed.ok) {
      errors.push(`unparseable server frame: ${parsed.code} ${parsed.message}`);
      return;
    }
    const f = parsed.value;
    const w = waiters.findIndex((x) => x.pred(f));
    if (w >= 0) waiters.splice(w, 1)[0]!.resolve(f);
    else frames.push(f);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) =>
      reject(new Error(`upgrade answered ${res.statusCode}`)),
    );
  });

  const waitMs = opts.waitMs ?? 5000;
  /** The next server frame matching `pred` (already received or yet to come). */
  const next = <T extends DeviceServerFrame['t']>(
    t?: T,
    pred: (f: Extract<DeviceServerFrame, { t: T }>) => boolean = () => true,
  ): Promise<Extract<DeviceServerFrame, { t: T }>> => {
    const match = (f: DeviceServerFrame) =>
      (t === undefined || f.t === t) && pred(f as Extract<DeviceServerFrame, { t: T }>);
    const i = frames.findIndex(match);
    if (i >= 0)
      return Promise.resolve(frames.splice(i, 1)[0] as Extract<DeviceServerFrame, { t: T }>);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${t ?? 'frame'} within ${waitMs} ms`)),
        waitMs,
      );
      waiters.push({
        pred: match,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f as Extract<DeviceServerFrame, { t: T }>);
        },
      });
    });
  };

  const challenge = (await next('challenge')) as ChallengeFrame;
  const epoch = opts.epoch ?? mintEpoch();
  let gen = '';

  const send = (frame: object) => ws.send(JSON.stringify(frame));
  const buildHello = (
    over: Partial<HelloFrame> = {},
    signWith?: { nonce?: string; deviceId?: string },
  ): HelloFrame => {
    if (identity === undefined) throw new Error('this test device has no identity');
    const h: HelloFrame = {
      t: 'hello',
      protocolVersion: DEVICE_PROTOCOL_VERSION,
      deviceId: identity.deviceId,
      epoch,
      signatureB64: '',
      platform: { os: 'linux', arch: 'x64', executorVersion: 'test-device' },
      workspaceRoot: '/tmp/ws',
      pathFlavor: 'posix',
      supports: ALL_KINDS,
      ...over,
    };
    if (over.signatureB64 === undefined) {
      h.signatureB64 = signHello(identity.privateKey, {
        nonce: signWith?.nonce ?? challenge.nonce,
        deviceId: signWith?.deviceId ?? h.deviceId,
        epoch: h.epoch,
        protocolVersion: h.protocolVersion,
      });
    }
    return h;
  };

  return {
    ws,
    challenge,
    epoch,
    identity,
    get gen() {
      return gen;
    },
    get closeInfo() {
      return closeInfo;
    },
    errors,
    closed,
    next,
    /** Frames received and not yet consumed by `next`. */
    pending: () => [...frames],
    send,
    sendRaw: (data: string | Buffer, binary = false) => ws.send(data, { binary }),
    buildHello,
    /** hello → helloAck | helloReject. */
    async hello(over: Partial<HelloFrame> = {}) {
      send(buildHello(over));
      const f = await next(undefined, (x) => x.t === 'helloAck' || x.t === 'helloReject');
      if (f.t === 'helloAck') gen = f.gen;
      return f as HelloAckFrame | Extract<DeviceServerFrame, { t: 'helloReject' }>;
    },
    /** hello + generationAck: ready for dispatch. */
    async handshake(over: Partial<HelloFrame> = {}): Promise<HelloAckFrame> {
      const f = await this.hello(over);
      if (f.t !== 'helloAck') throw new Error(`hello rejected: ${f.code}`);
      send({ t: 'generationAck', gen: f.gen });
      return f;
    },
    result(instructionId: string, outcome: object, deviceSeq = 0, g = gen) {
      send({ t: 'result', gen: g, instructionId, deviceSeq, outcome });
    },
    chunk(
      instructionId: string,
      streamSeq: number,
      kind: string,
      payload: string | number,
      g = gen,
    ) {
      send(
        kind === 'exit'
          ? { t: 'chunk', gen: g, instructionId, streamSeq, kind, exitCode: payload }
          : {
              t: 'chunk',
              gen: g,
              instructionId,
              streamSeq,
              kind,
              dataB64: Buffer.from(String(payload)).toString('base64'),
            },
      );
    },
    close: () => {
      ws.close();
      return closed;
    },
    /** Drop the TCP connection without a close handshake (a network cut). */
    cut: () => {
      ws.terminate();
      return closed;
    },
  };
};
