import { describe, expect, it } from 'vitest';
import { parseMachineMessage, parsePhoneMessage } from './messages.ts';
import { MACHINE_MESSAGES, PHONE_MESSAGES } from './test-support/fixtures.ts';

describe('inner messages: every valid message parses to itself', () => {
  it.each(Object.entries(MACHINE_MESSAGES))('machine → phone %s', (_type, msg) => {
    expect(parseMachineMessage(msg)).toEqual({ ok: true, value: msg });
  });
  it.each(Object.entries(PHONE_MESSAGES))('phone → machine %s', (_type, msg) => {
    expect(parsePhoneMessage(msg)).toEqual({ ok: true, value: msg });
  });
});

describe('D12: a parser never accepts the other direction', () => {
  it.each(Object.entries(PHONE_MESSAGES))('the phone ignores a reflected %s', (type, msg) => {
    expect(parseMachineMessage(msg)).toMatchObject({
      ok: false,
      ignored: true,
      code: 'wrong-direction',
      type,
    });
  });
  it.each(Object.entries(MACHINE_MESSAGES))('the machine ignores %s', (type, msg) => {
    expect(parsePhoneMessage(msg)).toMatchObject({
      ok: false,
      ignored: true,
      code: 'wrong-direction',
      type,
    });
  });
});

describe('forward compatibility: "Unknown type or v ⇒ receiver ignores the message"', () => {
  it('unknown type is ignored with its type for the log', () => {
    expect(parseMachineMessage({ v: 1, type: 'future.thing', ts: 1 })).toMatchObject({
      ok: false,
      ignored: true,
      code: 'unknown-type',
      type: 'future.thing',
    });
  });
  it('unknown v is ignored', () => {
    expect(parsePhoneMessage({ ...PHONE_MESSAGES['sessions.get'], v: 2 })).toMatchObject({
      ok: false,
      ignored: true,
      code: 'unknown-version',
    });
  });
  it('unknown fields are tolerated', () => {
    const r = parseMachineMessage({ ...MACHINE_MESSAGES['approval.closed'], future: { x: 1 } });
    expect(r).toEqual({ ok: true, value: MACHINE_MESSAGES['approval.closed'] });
  });
});
