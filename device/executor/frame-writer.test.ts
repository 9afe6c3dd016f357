import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { makeFrameWriter } from './frame-writer.ts';

type Setup = {
  client: WebSocket;
  socket: Duplex;
  messages: { text: string; isBinary: boolean }[];
  raw: Buffer[];
  serverSocket: Duplex;
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A real ws server on loopback; the test keeps the raw bytes it receives as well. */
const setup = async (): Promise<Setup> => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const { port } = wss.address() as AddressInfo;
  const messages: Setup['messages'] = [];
  const raw: Buffer[] = [];
  const serverSide = new Promise<Duplex>((resolve) =>
    wss.once('connection', (ws, req) => {
      ws.on('message', (d: Buffer, isBinary) => messages.push({ text: d.toString(), isBinary }));
      req.socket.on('data', (d: Buffer) => raw.push(d));
      resolve(req.socket);
    }),
  );
  const client = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
  const upgraded = new Promise<Duplex>((r) => client.once('upgrade', (res) => r(res.socket)));
  await new Promise<void>((r) => client.once('open', () => r()));
  const socket = await upgraded;
  const serverSocket = await serverSide;
  cleanups.push(async () => {
    client.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  });
  return { client, socket, messages, raw, serverSocket };
};

const waitFor = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setImmediate(r));
};

/** Client frames as they crossed the wire: RFC 6455 §5.2 header fields and the masking key. */
const parseFrames = (wire: Buffer) => {
  const out: { fin: boolean; opcode: number; masked: boolean; key: string; length: number }[] = [];
  let p = 0;
  while (p < wire.length) {
    const b0 = wire[p] as number;
    const b1 = wire[p + 1] as number;
    let len = b1 & 0x7f;
    let q = p + 2;
    if (len === 126) {
      len = wire.readUInt16BE(q);
      q += 2;
    } else if (len === 127) {
      len = Number(wire.readBigUInt64BE(q));
      q += 8;
    }
    const masked = (b1 & 0x80) !== 0;
    const key = masked ? wire.subarray(q, q + 4).toString('hex') : '';
    q += masked ? 4 : 0;
    out.push({ fin: (b0 & 0x80) !== 0, opcode: b0 & 0x0f, masked, key, length: len });
    p = q + len;
  }
  return out;
};

const textOf = (n: number, seed: number) => {
  let s = '';
  for (let i = 0; i < n; i += 1) s += String.fromCharCode(0x21 + ((seed * 7 + i * 13) % 90));
  return s;
};

describe('frame writer (RFC 6455 §5.2–5.3 client frames, §2 text frames only)', () => {
  it('§2: each payload arrives as exactly one text message, at every length-encoding boundary', async () => {
    const s = await setup();
    const w = makeFrameWriter(s.socket);
    const lengths = [0, 1, 125, 126, 127, 65535, 65536, 87500, 100_000];
    const sent = lengths.map((n, i) => textOf(n, i));
    for (const text of sent) w.sendText(text.length, (buf, at) => buf.write(text, at, 'latin1'));
    await waitFor(() => s.messages.length === sent.length);
    expect(s.messages.map((m) => m.isBinary)).toEqual(sent.map(() => false));
    expect(s.messages.map((m) => m.text)).toEqual(sent);
    const frames = parseFrames(Buffer.concat(s.raw));
    expect(frames.map((f) => [f.fin, f.opcode, f.masked, f.length])).toEqual(
      lengths.map((n) => [true, 1, true, n]),
    );
  });

  it('RFC 6455 §5.3: every frame carries its own random masking key, never a constant one', async () => {
    const s = await setup();
    const w = makeFrameWriter(s.socket);
    const n = 300;
    for (let i = 0; i < n; i += 1) w.sendText(4, (buf, at) => buf.write('abcd', at, 'latin1'));
    await waitFor(() => s.messages.length === n);
    const keys = parseFrames(Buffer.concat(s.raw)).map((f) => f.key);
    expect(keys).toHaveLength(n);
    // 300 draws of 32 random bits: a repeat has odds of about 1 in 100,000.
    expect(new Set(keys).size).toBeGreaterThanOrEqual(n - 1);
    expect(keys.filter((k) => k === '00000000').length).toBeLessThanOrEqual(1);
  });

  it('reused buffers: frames queued behind a stalled peer all arrive intact and in order', async () => {
    const s = await setup();
    const w = makeFrameWriter(s.socket);
    s.serverSocket.pause(); // the kernel buffers fill, then the socket queues our writes
    const n = 200;
    const sent = Array.from({ length: n }, (_, i) => textOf(87_000 + (i % 5), i));
    for (const text of sent) w.sendText(text.length, (buf, at) => buf.write(text, at, 'latin1'));
    expect(s.client.bufferedAmount).toBeGreaterThan(0);
    s.serverSocket.resume();
    await waitFor(() => s.messages.length === n);
    expect(s.messages.every((m, i) => m.text === sent[i])).toBe(true);
  });

  it('interleaves with ws sending on the same socket in call order', async () => {
    const s = await setup();
    const w = makeFrameWriter(s.socket);
    const order: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const text = i % 2 === 0 ? `writer ${i}` : `ws ${i}`;
      order.push(text);
      if (i % 2 === 0) w.sendText(text.length, (buf, at) => buf.write(text, at, 'latin1'));
      else s.client.send(text);
    }
    await waitFor(() => s.messages.length === order.length);
    expect(s.messages.map((m) => m.text)).toEqual(order);
  });

  it('X1 (wss): over TLS the frames go through the TLS socket ws upgraded, intact and in call order with ws', async () => {
    // A throwaway self-signed certificate for 127.0.0.1 (openssl from Debian, as in .ci/run).
    const dir = mkdtempSync(join(tmpdir(), 'dsh-frame-writer-tls-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1'],
    ]);
    const cert = readFileSync(certFile);
    const server = createServer({ key: readFileSync(keyFile), cert });
    const wss = new WebSocketServer({ server, perMessageDeflate: false });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const messages: string[] = [];
    wss.on('connection', (ws) => ws.on('message', (d: Buffer) => messages.push(d.toString())));
    const { port } = server.address() as AddressInfo;
    const client = new WebSocket(`wss://127.0.0.1:${port}`, { ca: cert, perMessageDeflate: false });
    cleanups.push(async () => {
      client.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => server.close(() => r()));
    });
    const upgraded = new Promise<Duplex>((r) => client.once('upgrade', (res) => r(res.socket)));
    await new Promise<void>((r) => client.once('open', () => r()));
    const w = makeFrameWriter(await upgraded);
    const order: string[] = [];
    [0, 125, 126, 65536, 87_500].forEach((n, i) => {
      const text = textOf(n, i);
      order.push(text, `ws ${i}`);
      w.sendText(text.length, (buf, at) => buf.write(text, at, 'latin1'));
      client.send(`ws ${i}`);
    });
    await waitFor(() => messages.length === order.length);
    expect(messages).toEqual(order);
  });
});
