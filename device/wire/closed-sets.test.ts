import { describe, expect, it } from 'vitest';
import * as sets from './closed-sets.ts';
import {
  DEVICE_WS_LIMITS,
  DEVICE_HELLO_DOMAIN_TAG,
  DEVICE_MIN_PROTOCOL_VERSION,
  DEVICE_PROTOCOL_VERSION,
  DEVICE_WS_PATH,
} from './constants.ts';

// Transcribed row by row from the spec's `<!-- closed-set: … -->` tables
// (the device protocol's §§1.4, 2.1–2.4, 3.1, 3.3, 4, 5.1–5.3).
const SPEC: Record<string, string[]> = {
  DEVICE_FRAME_TYPES: ['hello', 'generationAck', 'heartbeat', 'result', 'chunk', 'goodbye'],
  DEVICE_SERVER_FRAME_TYPES: [
    'challenge',
    'helloAck',
    'helloReject',
    'instruction',
    'payload',
    'cancel',
    'resultAck',
    'chunkAck',
    'bye',
    'ping',
  ],
  DEVICE_INSTRUCTION_KINDS: [
    'exec',
    'execStream',
    'readTextFile',
    'readTextLines',
    'readBinaryFile',
    'writeFile',
    'writeFileExclusive',
    'writeFileGuarded',
    'appendFile',
    'fileInfo',
    'listDir',
    'canonicalPath',
    'exists',
    'readLink',
    'createDir',
    'remove',
    'createTempDir',
    'createTempFile',
    'statBatch',
  ],
  DEVICE_OUTCOME_ERROR_CODES: [
    'aborted',
    'already_exists',
    'auth_failed',
    'callback_error',
    'invalid',
    'is_directory',
    'not_directory',
    'not_found',
    'not_supported',
    'outcome_unknown',
    'permission_denied',
    'precondition_failed',
    'shell_unavailable',
    'spawn_error',
    'suspended',
    'target_unavailable',
    'timeout',
    'transport_lost',
    'unknown',
  ],
  DEVICE_CHUNK_KINDS: ['stdout', 'stderr', 'data', 'exit'],
  DEVICE_HELLO_REJECT_CODES: [
    'auth_failed',
    'revoked',
    'protocol_version_unsupported',
    'draining',
    'already_connected',
  ],
  DEVICE_BYE_REASONS: ['revoked', 'draining', 'superseded'],
  DEVICE_GOODBYE_REASONS: ['shutdown', 'sleep', 'user_stop'],
  DEVICE_CANCEL_STATES: ['not_started', 'killed'],
  DEVICE_INSTRUCTION_STATES: ['queued', 'dispatch_committed', 'terminal', 'terminal_never_started'],
  DEVICE_FRAME_REJECT_REASONS: [
    'frame_too_large',
    'not_json',
    'not_object',
    'unknown_type',
    'bad_shape',
  ],
  DEVICE_FRAME_GATE_REJECT_REASONS: [
    'pre_hello',
    'generation_mismatch',
    'unknown_instruction',
    'instruction_not_committed',
    'device_mismatch',
  ],
  DEVICE_OUTCOME_KINDS: ['exec', 'read', 'stat', 'write', 'void', 'cancelled'],
  DEVICE_PAYLOAD_PARTS: ['begin', 'chunk', 'commit'],
  DEVICE_FILE_KINDS: ['file', 'dir', 'symlink', 'other'],
  DEVICE_PLATFORM_OS: ['darwin', 'linux'],
};

describe('closed sets match the spec tables', () => {
  for (const [name, expected] of Object.entries(SPEC)) {
    it(`${name} is exactly the spec's set, spelled as on the wire`, () => {
      const set = (sets as unknown as Record<string, Record<string, string>>)[name];
      expect(set).toBeDefined();
      expect(Object.keys(set as object).sort()).toEqual([...expected].sort());
      for (const [k, v] of Object.entries(set as object)) expect(v).toBe(k);
    });
  }

  it('isMember accepts members only, never inherited names', () => {
    expect(sets.isMember(sets.DEVICE_CHUNK_KINDS, 'exit')).toBe(true);
    expect(sets.isMember(sets.DEVICE_CHUNK_KINDS, 'EXIT')).toBe(false);
    expect(sets.isMember(sets.DEVICE_CHUNK_KINDS, '__proto__')).toBe(false);
    expect(sets.isMember(sets.DEVICE_CHUNK_KINDS, 'toString')).toBe(false);
    expect(sets.isMember(sets.DEVICE_CHUNK_KINDS, 3)).toBe(false);
  });

  it('DEVICE_CONSTANTS and DEVICE_WS_LIMITS are the §2.1 values', () => {
    expect(DEVICE_WS_PATH).toBe('/v1/device/ws');
    expect(DEVICE_PROTOCOL_VERSION).toBe(1);
    expect(DEVICE_MIN_PROTOCOL_VERSION).toBe(1);
    expect(DEVICE_HELLO_DOMAIN_TAG).toBe('sema.device.hello.v1');
    expect(DEVICE_WS_LIMITS).toEqual({
      maxFrameBytes: 1048576,
      maxPreAuthFrameBytes: 4096,
      handshakeDeadlineMs: 5000,
      defaultPayloadPartBytes: 262144,
    });
  });
});
