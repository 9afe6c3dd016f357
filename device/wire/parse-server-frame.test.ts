import { describe, expect, it } from 'vitest';
import { parseInstructionArgs } from './instruction-args.ts';
import { parseServerFrame } from './parse-server-frame.ts';

const J = (o: unknown) => JSON.stringify(o);
const code = (o: unknown) => {
  const r = parseServerFrame(typeof o === 'string' ? o : J(o));
  return r.ok ? 'ok' : r.code;
};
const sha = 'a'.repeat(64);
const ins = {
  t: 'instruction',
  gen: '3',
  instructionId: 'ins_1',
  rootSessionId: 's',
  issuedSeq: 0,
  kind: 'exec',
  args: { command: 'true' },
  timeoutMs: 1000,
};

describe('server → device frames (for the executor)', () => {
  it('accepts every §2.3 frame', () => {
    for (const f of [
      { t: 'challenge', nonce: 'abc', protocolVersion: 1 },
      {
        t: 'helloAck',
        ok: true,
        heartbeatIntervalMs: 15000,
        maxInflight: 4,
        gen: '1',
        pendingInstructions: [],
        chunkWatermarks: { ins_1: -1 },
      },
      { t: 'helloReject', code: 'protocol_version_unsupported', minProtocolVersion: 1 },
      ins,
      { ...ins, cwd: '/w', shellEnv: { A: 'b' } },
      { t: 'payload', gen: '3', instructionId: 'ins_1', part: 'begin', totalLen: 3, sha256: sha },
      { t: 'payload', gen: '3', instructionId: 'ins_1', part: 'chunk', offset: 0, dataB64: 'YWJj' },
      { t: 'payload', gen: '3', instructionId: 'ins_1', part: 'commit', totalLen: 3, sha256: sha },
      { t: 'cancel', gen: '3', instructionId: 'ins_1' },
      { t: 'resultAck', gen: '3', instructionId: 'ins_1' },
      { t: 'chunkAck', gen: '3', instructionId: 'ins_1', upToStreamSeq: -1 },
      { t: 'bye', gen: '3', reason: 'superseded' },
      { t: 'ping' },
    ])
      expect(code(f), J(f)).toBe('ok');
  });
  it('refuses malformed frames with the stage-1 reasons', () => {
    expect(code('nope')).toBe('not_json');
    expect(code('"x"')).toBe('not_object');
    expect(code({ t: 'hello' })).toBe('unknown_type');
    expect(code({ ...ins, kind: 'format' })).toBe('bad_shape');
    expect(code({ ...ins, gen: 3 })).toBe('bad_shape');
    expect(code({ ...ins, shellEnv: { A: 1 } })).toBe('bad_shape');
    expect(
      code({
        t: 'payload',
        gen: '3',
        instructionId: 'i',
        part: 'begin',
        totalLen: 3,
        sha256: 'AB',
      }),
    ).toBe('bad_shape');
    expect(
      code({
        t: 'payload',
        gen: '3',
        instructionId: 'i',
        part: 'chunk',
        offset: 0,
        dataB64: 'YWJ',
      }),
    ).toBe('bad_shape');
    expect(code({ t: 'helloReject', code: 'nope' })).toBe('bad_shape');
    expect(code({ t: 'bye', gen: '3', reason: 'tired' })).toBe('bad_shape');
    expect(
      code({
        t: 'helloAck',
        ok: true,
        heartbeatIntervalMs: 1,
        maxInflight: 1,
        gen: '1',
        pendingInstructions: [],
        chunkWatermarks: { a: -2 },
      }),
    ).toBe('bad_shape');
  });
});

describe('§3.1 instruction args per kind', () => {
  it('accepts the documented args', () => {
    expect(parseInstructionArgs('exec', { command: 'ls' }).ok).toBe(true);
    expect(parseInstructionArgs('readTextLines', { path: '/a', limit: 5 }).ok).toBe(true);
    expect(parseInstructionArgs('writeFile', { path: '/a', contentLen: 1, sha256: sha }).ok).toBe(
      true,
    );
    expect(
      parseInstructionArgs('writeFileGuarded', {
        path: '/a',
        contentLen: 1,
        sha256: sha,
        expect: { canonicalPath: '/a', noFollow: true },
      }).ok,
    ).toBe(true);
    expect(parseInstructionArgs('createTempFile', {}).ok).toBe(true);
    expect(parseInstructionArgs('statBatch', { paths: ['/a'] }).ok).toBe(true);
  });
  it('refuses bad args with `invalid` naming the field', () => {
    const r = parseInstructionArgs('readTextFile', { path: 'relative' });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.code).toBe('invalid');
    expect(r.ok ? '' : r.message).toMatch(/args\.path/);
    expect(parseInstructionArgs('exec', {}).ok).toBe(false);
    expect(parseInstructionArgs('writeFile', { path: '/a', contentLen: -1, sha256: sha }).ok).toBe(
      false,
    );
    expect(parseInstructionArgs('remove', { path: '/a', recursive: 'yes' }).ok).toBe(false);
    expect(parseInstructionArgs('exec', null).ok).toBe(false);
  });
});
