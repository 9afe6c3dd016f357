import { describe, expect, it } from 'vitest';
import { parseDeviceFrame } from './parse-device-frame.ts';

const J = (o: unknown) => JSON.stringify(o);
const code = (text: string, maxBytes?: number) => {
  const r = parseDeviceFrame(text, maxBytes === undefined ? {} : { maxBytes });
  return r.ok ? 'ok' : r.code;
};
const hello = {
  t: 'hello',
  protocolVersion: 1,
  deviceId: 'dev_01J8ZQ4T9X0000000000000000',
  epoch: '01J8ZQ4T9X7M3K5N6P8R0S2V4W',
  signatureB64: 'AAAA',
  platform: { os: 'linux', arch: 'x64', executorVersion: '0.1.0' },
  workspaceRoot: '/w',
  pathFlavor: 'posix',
  supports: ['exec'],
};
const chunk = {
  t: 'chunk',
  gen: '7',
  instructionId: 'ins_1',
  streamSeq: 0,
  kind: 'stdout',
  dataB64: 'aGk=',
};
const result = {
  t: 'result',
  gen: '7',
  instructionId: 'ins_1',
  deviceSeq: 0,
  outcome: { ok: true, kind: 'void' },
};

describe('§2.4 stage 1: parsing device → server frames', () => {
  it('frame_too_large: over the phase cap, checked on UTF-8 bytes', () => {
    const big = J({ ...hello, workspaceRoot: 'é'.repeat(2100) });
    expect(code(big, 4096)).toBe('frame_too_large');
    expect(code(big)).toBe('ok');
  });
  it('not_json / not_object / unknown_type', () => {
    expect(code('{')).toBe('not_json');
    expect(code('[1]')).toBe('not_object');
    expect(code('null')).toBe('not_object');
    expect(code(J({ x: 1 }))).toBe('unknown_type');
    expect(code(J({ t: 'challenge' }))).toBe('unknown_type');
    expect(code(J({ t: '__proto__' }))).toBe('unknown_type');
  });
  it('a valid frame of every type parses', () => {
    for (const f of [
      hello,
      { ...hello, resuming: { unackedResults: 2 } },
      { t: 'generationAck', gen: '0' },
      { t: 'heartbeat', gen: '18446744073709551615', seq: 3, inflight: ['ins_1'] },
      result,
      chunk,
      { ...chunk, kind: 'exit', dataB64: undefined, exitCode: -1 },
      { ...chunk, kind: 'data', dataB64: '' },
      { t: 'goodbye', gen: '7', reason: 'sleep', graceMs: 0 },
    ])
      expect(code(J(f)), J(f)).toBe('ok');
  });
  it('bad_shape: gen must be the canonical decimal string', () => {
    for (const gen of [
      7,
      '07',
      '+7',
      ' 7',
      '7.0',
      '7e0',
      '',
      '-1',
      '18446744073709551616',
      '0x7',
    ]) {
      expect(code(J({ t: 'generationAck', gen })), String(gen)).toBe('bad_shape');
    }
  });
  it('bad_shape: numeric fields are safe integers only', () => {
    for (const seq of [1.5, '1', -1, 2 ** 53, null]) {
      expect(code(J({ t: 'heartbeat', gen: '1', seq, inflight: [] })), String(seq)).toBe(
        'bad_shape',
      );
    }
    expect(code(J({ ...hello, protocolVersion: '1' }))).toBe('bad_shape');
  });
  it("bad_shape: a chunk's kind must agree with its payload fields", () => {
    expect(code(J({ ...chunk, exitCode: 0 }))).toBe('bad_shape');
    expect(code(J({ ...chunk, dataB64: undefined }))).toBe('bad_shape');
    expect(code(J({ ...chunk, kind: 'exit' }))).toBe('bad_shape');
    expect(code(J({ ...chunk, kind: 'exit', dataB64: undefined }))).toBe('bad_shape');
    expect(code(J({ ...chunk, kind: 'bogus' }))).toBe('bad_shape');
  });
  it('bad_shape: dataB64 must be canonical base64', () => {
    for (const dataB64 of ['aGk', 'aGl=', 'a-k=', 'aG k='])
      expect(code(J({ ...chunk, dataB64 }))).toBe('bad_shape');
  });
  it('bad_shape: hello fields', () => {
    expect(code(J({ ...hello, deviceId: '' }))).toBe('bad_shape');
    expect(code(J({ ...hello, platform: { os: 'linux' } }))).toBe('bad_shape');
    expect(code(J({ ...hello, supports: [1] }))).toBe('bad_shape');
    expect(code(J({ ...hello, resuming: { unackedResults: -1 } }))).toBe('bad_shape');
  });
  it('bad_shape: goodbye reason closed set', () => {
    expect(code(J({ t: 'goodbye', gen: '1', reason: 'bored' }))).toBe('bad_shape');
  });
  it('the message names the offending field', () => {
    const r = parseDeviceFrame(J({ ...chunk, streamSeq: -2 }));
    expect(r.ok ? '' : r.message).toMatch(/streamSeq/);
  });
});

describe('§3.3 outcomes inside result frames', () => {
  const withOutcome = (outcome: unknown) => code(J({ ...result, outcome }));
  it('accepts every arm', () => {
    for (const o of [
      { ok: true, kind: 'exec', exitCode: 0, truncated: { stdout: true, stderr: false } },
      { ok: true, kind: 'read' },
      {
        ok: true,
        kind: 'stat',
        info: { path: '/a', kind: 'file', size: 1, mtimeMs: 2, mode: 420 },
      },
      { ok: true, kind: 'stat', entries: [] },
      { ok: true, kind: 'stat', existsValue: false },
      { ok: true, kind: 'stat', linkTarget: null },
      { ok: true, kind: 'write', canonicalPath: '/a', inode: '12', created: true },
      { ok: true, kind: 'void' },
      { ok: true, kind: 'cancelled', state: 'killed' },
      { ok: false, errorCode: 'outcome_unknown', message: 'lost' },
    ])
      expect(withOutcome(o), J(o)).toBe('ok');
  });
  it('refuses malformed arms', () => {
    for (const o of [
      { ok: 'yes' },
      { ok: true, kind: 'nope' },
      { ok: true, kind: 'exec' },
      { ok: true, kind: 'exec', exitCode: 0, truncated: { stdout: 1 } },
      { ok: true, kind: 'stat', info: { path: '/a', kind: 'pipe', size: 1, mtimeMs: 2 } },
      { ok: true, kind: 'write' },
      { ok: true, kind: 'cancelled', state: 'gone' },
      { ok: false, errorCode: 'nope', message: 'x' },
      { ok: false, errorCode: 'invalid' },
    ])
      expect(withOutcome(o), J(o)).toBe('bad_shape');
  });
});
