import { describe, expect, it } from 'vitest';
import {
  MESSAGE_ERRORS,
  PAGE_MESSAGE_TYPES,
  WORKER_MESSAGE_TYPES,
  parsePageMessage,
  parseWhereReply,
  parseWorkerMessage,
  type WorkerMessage,
} from './messages.ts';

const T = WORKER_MESSAGE_TYPES;
const code = (r: { ok: boolean; code?: string }) => (r.ok ? 'ok' : r.code);

describe('page ↔ worker messages: each side parses what it receives', () => {
  it('every message the worker sends parses back to itself', () => {
    const sent: WorkerMessage[] = [
      { type: T.pushReceived, roomId: 'room-a', kind: 'approval', at: 5, shown: true },
      { type: T.pushReceived, roomId: null, kind: 'unreadable', at: 5, shown: false },
      { type: T.subscriptionChanged },
      { type: T.approvalAnswered, roomId: 'room-a', approvalId: 'a1', outcome: 'allowed' },
      { type: T.navigate, url: '/#/m/room-a/s/s1' },
      { type: T.whereAreYou },
    ];
    for (const message of sent) {
      expect(parseWorkerMessage(structuredClone(message))).toEqual({ ok: true, value: message });
    }
  });

  it('a stray or malformed message is refused with a specific code, never half-read', () => {
    expect(code(parseWorkerMessage(null))).toBe(MESSAGE_ERRORS.notAMessage);
    expect(code(parseWorkerMessage({ type: 7 }))).toBe(MESSAGE_ERRORS.notAMessage);
    expect(code(parseWorkerMessage({ type: 'workbox-update' }))).toBe(MESSAGE_ERRORS.unknownType);
    const push = { type: T.pushReceived, roomId: 'room-a', kind: 'done', at: 5, shown: true };
    for (const broken of [{ roomId: 3 }, { kind: null }, { at: '5' }, { shown: 'yes' }]) {
      expect(code(parseWorkerMessage({ ...push, ...broken }))).toBe(MESSAGE_ERRORS.badField);
    }
    expect(code(parseWorkerMessage({ type: T.navigate }))).toBe(MESSAGE_ERRORS.badField);
    expect(code(parseWorkerMessage({ type: T.approvalAnswered, roomId: 'r' }))).toBe(
      MESSAGE_ERRORS.badField,
    );
  });

  it('the page’s one message to the worker: run a notification action', () => {
    const run = { type: PAGE_MESSAGE_TYPES.runNotificationAction, tag: 't1', action: 'allow' };
    expect(parsePageMessage(run)).toEqual({ ok: true, value: run });
    expect(code(parsePageMessage({ ...run, tag: undefined }))).toBe(MESSAGE_ERRORS.badField);
    expect(code(parsePageMessage({ type: T.pushReceived }))).toBe(MESSAGE_ERRORS.unknownType);
    expect(code(parsePageMessage('allow'))).toBe(MESSAGE_ERRORS.notAMessage);
  });

  it('the page’s answer to where-are-you carries its URL, or is ignored', () => {
    expect(parseWhereReply({ url: 'https://app/#/m/r' })).toEqual({ url: 'https://app/#/m/r' });
    expect(parseWhereReply({ url: 1 })).toBeNull();
    expect(parseWhereReply(undefined)).toBeNull();
  });
});
