import { err, ok, type Result } from '../../protocol/result.ts';
import {
  DEVICE_CANCEL_STATES,
  DEVICE_FILE_KINDS,
  DEVICE_OUTCOME_ERROR_CODES,
  DEVICE_OUTCOME_KINDS,
  isMember,
  type DeviceInstructionKind,
  type DeviceOutcomeKind,
} from './closed-sets.ts';
import { isObject, isSafeInt, makeShapeCheck, type Obj } from './check.ts';
import type { DeviceOutcome, WireFileInfo } from './frames.ts';

const isFileInfo = (v: unknown): v is WireFileInfo =>
  isObject(v) &&
  typeof v.path === 'string' &&
  isMember(DEVICE_FILE_KINDS, v.kind) &&
  isSafeInt(v.size, 0) &&
  isSafeInt(v.mtimeMs) &&
  (v.mode === undefined || isSafeInt(v.mode, 0));

/** Parses a `result.outcome` (§3.3). The message names the offending field. */
export const parseOutcome = (v: unknown): Result<DeviceOutcome, 'bad_shape'> => {
  if (!isObject(v)) return err('bad_shape', 'outcome must be an object');
  const c = makeShapeCheck();
  const o: Obj = v;
  if (o.ok === false) {
    c.need(
      isMember(DEVICE_OUTCOME_ERROR_CODES, o.errorCode),
      'outcome.errorCode is not in the closed set',
    );
    c.need(
      typeof o.message === 'string' && o.message.length > 0,
      'outcome.message is required on failure',
    );
  } else if (
    o.ok === true &&
    c.need(isMember(DEVICE_OUTCOME_KINDS, o.kind), 'outcome.kind is not in the closed set')
  ) {
    switch (o.kind as DeviceOutcomeKind) {
      case 'exec': {
        c.need(isSafeInt(o.exitCode), 'outcome.exitCode must be a safe integer');
        const t = o.truncated;
        c.need(
          t === undefined ||
            (isObject(t) &&
              (t.stdout === undefined || typeof t.stdout === 'boolean') &&
              (t.stderr === undefined || typeof t.stderr === 'boolean')),
          'outcome.truncated must be { stdout?: boolean, stderr?: boolean }',
        );
        break;
      }
      case 'stat':
        c.need(o.info === undefined || isFileInfo(o.info), 'outcome.info must be a WireFileInfo');
        c.need(
          o.entries === undefined || (Array.isArray(o.entries) && o.entries.every(isFileInfo)),
          'outcome.entries must be WireFileInfo[]',
        );
        c.bool(o, 'existsValue', true);
        c.str(o, 'canonicalPath', true);
        c.need(
          o.linkTarget === undefined || o.linkTarget === null || typeof o.linkTarget === 'string',
          'outcome.linkTarget must be a string or null',
        );
        break;
      case 'write':
        c.nonEmpty(o, 'canonicalPath');
        c.str(o, 'inode', true);
        c.bool(o, 'created', true);
        break;
      case 'cancelled':
        c.need(isMember(DEVICE_CANCEL_STATES, o.state), 'outcome.state is not a cancel state');
        break;
      case 'read':
      case 'void':
        break;
    }
  } else {
    c.need(false, 'outcome.ok must be a boolean');
  }
  return c.problem === null ? ok(o as DeviceOutcome) : err('bad_shape', c.problem);
};

/** §3.1: which success arm each instruction kind owes. */
export const OUTCOME_KIND_FOR_INSTRUCTION: Readonly<
  Record<DeviceInstructionKind, DeviceOutcomeKind>
> = {
  exec: 'exec',
  execStream: 'exec',
  readTextFile: 'read',
  readTextLines: 'read',
  readBinaryFile: 'read',
  writeFile: 'write',
  writeFileExclusive: 'write',
  writeFileGuarded: 'write',
  appendFile: 'void',
  fileInfo: 'stat',
  listDir: 'stat',
  canonicalPath: 'stat',
  exists: 'stat',
  readLink: 'stat',
  createDir: 'void',
  remove: 'void',
  createTempDir: 'write',
  createTempFile: 'write',
  statBatch: 'stat',
};

/** §3.1/§3.3: the one `stat` field each stat-kind instruction requires. */
export const STAT_FIELD_FOR_INSTRUCTION: Partial<Record<DeviceInstructionKind, string>> = {
  fileInfo: 'info',
  listDir: 'entries',
  canonicalPath: 'canonicalPath',
  exists: 'existsValue',
  readLink: 'linkTarget',
};

/** §3.4: instructions whose content arrives through `payload`. */
export const PAYLOAD_INSTRUCTION_KINDS: ReadonlySet<DeviceInstructionKind> = new Set([
  'writeFile',
  'writeFileExclusive',
  'writeFileGuarded',
  'appendFile',
]);

/** §4: which chunk kinds each family streams (exec: stdout/stderr + one exit; reads: data). */
export const EXEC_INSTRUCTION_KINDS: ReadonlySet<DeviceInstructionKind> = new Set([
  'exec',
  'execStream',
]);
export const READ_INSTRUCTION_KINDS: ReadonlySet<DeviceInstructionKind> = new Set([
  'readTextFile',
  'readTextLines',
  'readBinaryFile',
]);
