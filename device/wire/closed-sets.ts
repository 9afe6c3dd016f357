// Every closed set of the device executor protocol, spelled exactly as on the wire. Each is an
// `as const` map (key === value) so membership checks are a property lookup and the union type is
// derived, never written twice. closed-sets.test.ts checks each against the spec's tables.

export const DEVICE_FRAME_TYPES = {
  hello: 'hello',
  generationAck: 'generationAck',
  heartbeat: 'heartbeat',
  result: 'result',
  chunk: 'chunk',
  goodbye: 'goodbye',
} as const;
export type DeviceFrameType = keyof typeof DEVICE_FRAME_TYPES;

export const DEVICE_SERVER_FRAME_TYPES = {
  challenge: 'challenge',
  helloAck: 'helloAck',
  helloReject: 'helloReject',
  instruction: 'instruction',
  payload: 'payload',
  cancel: 'cancel',
  resultAck: 'resultAck',
  chunkAck: 'chunkAck',
  bye: 'bye',
  ping: 'ping',
} as const;
export type DeviceServerFrameType = keyof typeof DEVICE_SERVER_FRAME_TYPES;

export const DEVICE_INSTRUCTION_KINDS = {
  exec: 'exec',
  execStream: 'execStream',
  readTextFile: 'readTextFile',
  readTextLines: 'readTextLines',
  readBinaryFile: 'readBinaryFile',
  writeFile: 'writeFile',
  writeFileExclusive: 'writeFileExclusive',
  writeFileGuarded: 'writeFileGuarded',
  appendFile: 'appendFile',
  fileInfo: 'fileInfo',
  listDir: 'listDir',
  canonicalPath: 'canonicalPath',
  exists: 'exists',
  readLink: 'readLink',
  createDir: 'createDir',
  remove: 'remove',
  createTempDir: 'createTempDir',
  createTempFile: 'createTempFile',
  statBatch: 'statBatch',
} as const;
export type DeviceInstructionKind = keyof typeof DEVICE_INSTRUCTION_KINDS;

export const DEVICE_OUTCOME_ERROR_CODES = {
  aborted: 'aborted',
  already_exists: 'already_exists',
  auth_failed: 'auth_failed',
  callback_error: 'callback_error',
  invalid: 'invalid',
  is_directory: 'is_directory',
  not_directory: 'not_directory',
  not_found: 'not_found',
  not_supported: 'not_supported',
  outcome_unknown: 'outcome_unknown',
  permission_denied: 'permission_denied',
  precondition_failed: 'precondition_failed',
  shell_unavailable: 'shell_unavailable',
  spawn_error: 'spawn_error',
  suspended: 'suspended',
  target_unavailable: 'target_unavailable',
  timeout: 'timeout',
  transport_lost: 'transport_lost',
  unknown: 'unknown',
} as const;
export type DeviceOutcomeErrorCode = keyof typeof DEVICE_OUTCOME_ERROR_CODES;

export const DEVICE_CHUNK_KINDS = {
  stdout: 'stdout',
  stderr: 'stderr',
  data: 'data',
  exit: 'exit',
} as const;
export type DeviceChunkKind = keyof typeof DEVICE_CHUNK_KINDS;

export const DEVICE_HELLO_REJECT_CODES = {
  auth_failed: 'auth_failed',
  revoked: 'revoked',
  protocol_version_unsupported: 'protocol_version_unsupported',
  draining: 'draining',
  already_connected: 'already_connected',
} as const;
export type DeviceHelloRejectCode = keyof typeof DEVICE_HELLO_REJECT_CODES;

export const DEVICE_BYE_REASONS = {
  revoked: 'revoked',
  draining: 'draining',
  superseded: 'superseded',
} as const;
export type DeviceByeReason = keyof typeof DEVICE_BYE_REASONS;

export const DEVICE_GOODBYE_REASONS = {
  shutdown: 'shutdown',
  sleep: 'sleep',
  user_stop: 'user_stop',
} as const;
export type DeviceGoodbyeReason = keyof typeof DEVICE_GOODBYE_REASONS;

export const DEVICE_CANCEL_STATES = {
  not_started: 'not_started',
  killed: 'killed',
} as const;
export type DeviceCancelState = keyof typeof DEVICE_CANCEL_STATES;

export const DEVICE_INSTRUCTION_STATES = {
  queued: 'queued',
  dispatch_committed: 'dispatch_committed',
  terminal: 'terminal',
  terminal_never_started: 'terminal_never_started',
} as const;
export type DeviceInstructionState = keyof typeof DEVICE_INSTRUCTION_STATES;

/** Stage 1 (parsing) refusals, §2.4. */
export const DEVICE_FRAME_REJECT_REASONS = {
  frame_too_large: 'frame_too_large',
  not_json: 'not_json',
  not_object: 'not_object',
  unknown_type: 'unknown_type',
  bad_shape: 'bad_shape',
} as const;
export type DeviceFrameRejectReason = keyof typeof DEVICE_FRAME_REJECT_REASONS;

/** Stage 2 (admission) refusals, §2.4. */
export const DEVICE_FRAME_GATE_REJECT_REASONS = {
  pre_hello: 'pre_hello',
  generation_mismatch: 'generation_mismatch',
  unknown_instruction: 'unknown_instruction',
  instruction_not_committed: 'instruction_not_committed',
  device_mismatch: 'device_mismatch',
} as const;
export type DeviceFrameGateRejectReason = keyof typeof DEVICE_FRAME_GATE_REJECT_REASONS;

/** §3.3: the success arms of an outcome. */
export const DEVICE_OUTCOME_KINDS = {
  exec: 'exec',
  read: 'read',
  stat: 'stat',
  write: 'write',
  void: 'void',
  cancelled: 'cancelled',
} as const;
export type DeviceOutcomeKind = keyof typeof DEVICE_OUTCOME_KINDS;

/** §3.4: the parts of a write payload sub-sequence. */
export const DEVICE_PAYLOAD_PARTS = { begin: 'begin', chunk: 'chunk', commit: 'commit' } as const;
export type DevicePayloadPart = keyof typeof DEVICE_PAYLOAD_PARTS;

/** §3.3 WireFileInfo.kind. */
export const DEVICE_FILE_KINDS = {
  file: 'file',
  dir: 'dir',
  symlink: 'symlink',
  other: 'other',
} as const;
export type DeviceFileKind = keyof typeof DEVICE_FILE_KINDS;

/** §1.1: enrollment `platformOs`; there is no third value. */
export const DEVICE_PLATFORM_OS = { darwin: 'darwin', linux: 'linux' } as const;
export type DevicePlatformOs = keyof typeof DEVICE_PLATFORM_OS;

/** §1.1: the `errorCode` words of the HTTP management plane. */
export const DEVICE_HTTP_ERROR_CODES = {
  'request.invalid_json': 'request.invalid_json',
  'request.body_shape': 'request.body_shape',
  'request.field_invalid': 'request.field_invalid',
  'auth.forbidden': 'auth.forbidden',
  'device.enrollment_invalid': 'device.enrollment_invalid',
  'limit.rate_exceeded': 'limit.rate_exceeded',
  'capability.device_lane_required': 'capability.device_lane_required',
  'request.not_found': 'request.not_found',
} as const;
export type DeviceHttpErrorCode = keyof typeof DEVICE_HTTP_ERROR_CODES;

/** Membership test for any closed set above (own keys only: `__proto__` is never a member). */
export const isMember = <S extends Record<string, string>>(
  set: S,
  value: unknown,
): value is keyof S =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(set, value);
