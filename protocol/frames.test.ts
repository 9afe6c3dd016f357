import { describe, it, expect } from 'vitest';
import {
  encodeFrame,
  isValidRoomId,
  parseClientFrame,
  parseServerFrame,
  type ClientFrame,
  type ServerFrame,
} from './frames.ts';

const ROOM = 'AbCdEfGh_-12345678901A';
const SUB = {
  endpoint: 'https://push.example.com/abc',
  expirationTime: null,
  keys: { p256dh: 'BAAA', auth: 'AAAA' },
};
const codeOf = (r: { ok: boolean; code?: string }) => (r.ok ? 'ok' : r.code);
const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

describe('Room id validation: ^[A-Za-z0-9_-]{8,128}$', () => {
  it.each([
    ['8 chars', 'abcdefgh', true],
    ['128 chars', 'a'.repeat(128), true],
    ['__proto__ is a valid id (D3: rooms live in Maps)', '__proto__', true],
    ['7 chars', 'abcdefg', false],
    ['129 chars', 'a'.repeat(129), false],
    ['a dot', 'abcdefg.h', false],
    ['a plus (base64, not base64url)', 'abcdefg+', false],
    ['a number', 12345678, false],
  ])('%s', (_name, id, valid) => {
    expect(isValidRoomId(id)).toBe(valid);
  });
});

describe('parseClientFrame accepts every client frame', () => {
  it.each<[string, ClientFrame]>([
    ['hello as machine', { kind: 'hello', room: ROOM, role: 'machine' }],
    ['hello as phone', { kind: 'hello', room: ROOM, role: 'phone' }],
    ['msg with push null', { kind: 'msg', room: ROOM, payload: 'AAAA', push: null }],
    ['msg without push', { kind: 'msg', room: ROOM, payload: 'AAAA' }],
    ['msg with push', { kind: 'msg', room: ROOM, payload: 'A', push: { payload: 'B', tag: 't' } }],
    ['push-subscribe', { kind: 'push-subscribe', room: ROOM, subscription: SUB }],
    ['push-unsubscribe', { kind: 'push-unsubscribe', room: ROOM, endpoint: SUB.endpoint }],
  ])('%s round-trips through encodeFrame', (_name, frame) => {
    const text = encodeFrame(frame);
    expect(parseClientFrame(text)).toEqual({ ok: true, value: frame });
    expect(parseClientFrame(new TextEncoder().encode(text))).toEqual({ ok: true, value: frame });
  });

  it('ignores unknown fields (forward compatibility)', () => {
    const r = parseClientFrame(JSON.stringify({ kind: 'hello', room: ROOM, role: 'phone', x: 1 }));
    expect(r).toEqual({ ok: true, value: { kind: 'hello', room: ROOM, role: 'phone' } });
  });
});

describe('parseClientFrame refuses, one rule each', () => {
  it('D1: a frame over 16 KiB (UTF-8 bytes, checked before JSON parsing) is too-large', () => {
    const pad = (n: number) => ({ kind: 'msg', room: ROOM, payload: 'A'.repeat(n) });
    const base = JSON.stringify(pad(0)).length;
    expect(codeOf(parseClientFrame(JSON.stringify(pad(16384 - base))))).toBe('ok');
    expect(codeOf(parseClientFrame(JSON.stringify(pad(16385 - base))))).toBe('too-large');
    expect(codeOf(parseClientFrame(new Uint8Array(16385)))).toBe('too-large');
    // 5462 three-byte characters are 16386 bytes though only 5462 UTF-16 units.
    expect(codeOf(parseClientFrame('€'.repeat(5462)))).toBe('too-large');
    // Not JSON at all, but the size rule comes first.
    expect(codeOf(parseClientFrame('{'.repeat(16385)))).toBe('too-large');
  });
  it('invalid UTF-8 bytes are not-json', () => {
    expect(codeOf(parseClientFrame(new Uint8Array([0x7b, 0xff, 0x7d])))).toBe('not-json');
  });
  it('malformed JSON is not-json', () => {
    expect(codeOf(parseClientFrame('{"kind":"hello"'))).toBe('not-json');
  });
  it.each([['null'], ['[]'], ['"hello"'], ['42']])('%s is not-object', (text) => {
    expect(codeOf(parseClientFrame(text))).toBe('not-object');
  });
  it.each([
    ['an unknown kind', { kind: 'leave', room: ROOM }],
    ['a missing kind', { room: ROOM }],
    ['a non-string kind', { kind: 1 }],
    ['a server kind', { kind: 'hello-ok', peers: { machine: 0, phone: 0 } }],
  ])('%s is unknown-kind', (_n, v) => {
    expect(codeOf(parseClientFrame(JSON.stringify(v)))).toBe('unknown-kind');
  });
  it.each([
    ['hello', { kind: 'hello', room: 'short', role: 'phone' }],
    ['msg', { kind: 'msg', room: 'a/b/c/d/e', payload: 'A' }],
    ['push-subscribe', { kind: 'push-subscribe', room: 1, subscription: SUB }],
    ['push-unsubscribe', { kind: 'push-unsubscribe', endpoint: 'x' }],
  ])('a bad room in %s is bad-room', (_n, v) => {
    expect(codeOf(parseClientFrame(JSON.stringify(v)))).toBe('bad-room');
  });
  it.each([['admin'], [null], [undefined]])('hello with role %s is bad-role', (role) => {
    expect(codeOf(parseClientFrame(JSON.stringify({ kind: 'hello', room: ROOM, role })))).toBe(
      'bad-role',
    );
  });
  it.each([
    ['msg payload not a string', { kind: 'msg', room: ROOM, payload: 1 }],
    ['push not an object', { kind: 'msg', room: ROOM, payload: 'A', push: 'x' }],
    ['push.payload missing', { kind: 'msg', room: ROOM, payload: 'A', push: { tag: 't' } }],
    [
      'push.tag not a string',
      { kind: 'msg', room: ROOM, payload: 'A', push: { payload: 'B', tag: 1 } },
    ],
    ['subscription missing', { kind: 'push-subscribe', room: ROOM }],
    [
      'subscription.endpoint missing',
      { kind: 'push-subscribe', room: ROOM, subscription: { keys: SUB.keys } },
    ],
    [
      'subscription.keys.auth missing',
      { kind: 'push-subscribe', room: ROOM, subscription: { ...SUB, keys: { p256dh: 'A' } } },
    ],
    [
      'subscription.expirationTime a string',
      { kind: 'push-subscribe', room: ROOM, subscription: { ...SUB, expirationTime: 'x' } },
    ],
    ['push-unsubscribe endpoint missing', { kind: 'push-unsubscribe', room: ROOM }],
  ])('%s is bad-field', (_n, v) => {
    expect(codeOf(parseClientFrame(JSON.stringify(v)))).toBe('bad-field');
  });
  it('D1: push.payload over 3 KiB is too-large; exactly 3 KiB passes', () => {
    const msg = (n: number) => ({
      kind: 'msg',
      room: ROOM,
      payload: 'A',
      push: { payload: 'P'.repeat(n) },
    });
    expect(codeOf(parseClientFrame(enc(msg(3072))))).toBe('ok');
    expect(codeOf(parseClientFrame(enc(msg(3073))))).toBe('too-large');
  });
  it('__proto__ and constructor keys do not confuse the parser', () => {
    const text =
      '{"__proto__":{"kind":"hello"},"constructor":1,"kind":"hello","room":"__proto__","role":"phone"}';
    expect(parseClientFrame(text)).toEqual({
      ok: true,
      value: { kind: 'hello', room: '__proto__', role: 'phone' },
    });
    expect(
      codeOf(parseClientFrame('{"__proto__":{"kind":"hello","room":"abcdefgh","role":"phone"}}')),
    ).toBe('unknown-kind');
  });
  it('10,000-deep nesting within the size cap is refused without a stack overflow', () => {
    const deep = '{"kind":' + '['.repeat(8000) + ']'.repeat(8000) + '}';
    expect(codeOf(parseClientFrame(deep))).toBe('unknown-kind');
  });
});

describe('parseServerFrame', () => {
  it.each<[string, ServerFrame]>([
    ['hello-ok', { kind: 'hello-ok', peers: { machine: 1, phone: 0 } }],
    ['presence', { kind: 'presence', room: ROOM, role: 'machine', online: false }],
    ['error with message', { kind: 'error', code: 'limit', message: 'too many rooms' }],
    ['error from a newer relay', { kind: 'error', code: 'some-new-code' }],
    ['forwarded msg', { kind: 'msg', room: ROOM, payload: 'AAAA' }],
  ])('accepts %s', (_n, frame) => {
    expect(parseServerFrame(encodeFrame(frame))).toEqual({ ok: true, value: frame });
  });
  it('D6: drops a push field on a forwarded msg', () => {
    const text = JSON.stringify({ kind: 'msg', room: ROOM, payload: 'A', push: { payload: 'B' } });
    expect(parseServerFrame(text)).toEqual({
      ok: true,
      value: { kind: 'msg', room: ROOM, payload: 'A' },
    });
  });
  it.each([
    ['too-large', 'x'.repeat(16385)],
    ['not-json', '{'],
    ['not-object', '[1]'],
    ['unknown-kind', '{"kind":"hello"}'],
    ['bad-field', '{"kind":"hello-ok","peers":{"machine":-1,"phone":0}}'],
    ['bad-field', '{"kind":"hello-ok"}'],
    ['bad-room', '{"kind":"presence","room":"x","role":"phone","online":true}'],
    ['bad-role', `{"kind":"presence","room":"${ROOM}","role":"cat","online":true}`],
    ['bad-field', `{"kind":"presence","room":"${ROOM}","role":"phone","online":"yes"}`],
    ['bad-field', '{"kind":"error"}'],
    ['bad-field', '{"kind":"error","code":"limit","message":5}'],
    ['bad-field', `{"kind":"msg","room":"${ROOM}"}`],
  ])('refuses with %s: %s', (code, text) => {
    expect(codeOf(parseServerFrame(text))).toBe(code);
  });
});
