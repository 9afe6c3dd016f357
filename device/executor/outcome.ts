// The terminal outcomes the executor produces (§3.3). Failures always carry a specific message:
// it is shown to the model.
import type {
  DeviceOutcome,
  DeviceOutcomeErrorCode,
  FailureOutcome,
  WireFileInfo,
} from '../wire/index.ts';

export type FileKind = WireFileInfo['kind'];
export type FileInfo = WireFileInfo;
export type Outcome = DeviceOutcome;
export type Failure = FailureOutcome;

export const fail = (errorCode: DeviceOutcomeErrorCode, message: string): Failure => ({
  ok: false,
  errorCode,
  message,
});

/** H7a: a component turned into a symbolic link after containment walked the path. */
export const linkSwapped = (path: string): Failure =>
  fail('permission_denied', `${path} changed into a symbolic link while it was in use; refused`);

/** Maps a Node fs error to the spec's error codes, with a message naming the path. */
export const fsFailure = (e: unknown, path: string, doing: string): Failure => {
  const code = (e as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return fail('not_found', `${doing} ${path}: no such file or directory`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return fail('permission_denied', `${doing} ${path}: the operating system refused (${code})`);
    case 'EISDIR':
      return fail('is_directory', `${doing} ${path}: is a directory`);
    case 'ENOTDIR':
      return fail('not_directory', `${doing} ${path}: a path component is not a directory`);
    case 'EEXIST':
      return fail('already_exists', `${doing} ${path}: already exists`);
    case 'ENOTEMPTY':
      return fail('invalid', `${doing} ${path}: directory is not empty (use recursive)`);
    case 'ELOOP':
      return fail('invalid', `${doing} ${path}: too many levels of symbolic links`);
    case 'ENOSPC':
    case 'EDQUOT':
      return fail('unknown', `${doing} ${path}: no space left on the device`);
    default:
      return fail('unknown', `${doing} ${path}: ${code ?? 'unexpected error'}`);
  }
};
