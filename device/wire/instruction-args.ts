import { err, ok, type Result } from '../../protocol/result.ts';
import type { DeviceInstructionKind } from './closed-sets.ts';
import { isObject, isStringArray, makeShapeCheck, SHA256_HEX_PATTERN, type Obj } from './check.ts';

/** §3.1 `args`, per kind. Paths arrive absolute and POSIX-normalized. */
export type ExecArgs = { command: string };
export type PathArgs = { path: string };
export type ReadLinesArgs = { path: string; offset?: number; limit?: number };
export type WriteArgs = { path: string; contentLen: number; sha256: string };
export type GuardedExpect = {
  canonicalPath: string;
  fileId?: string;
  exclusive?: boolean;
  noFollow?: boolean;
};
export type GuardedWriteArgs = WriteArgs & { expect: GuardedExpect };
export type RecursiveArgs = { path: string; recursive?: boolean };
export type TempDirArgs = { prefix?: string };
export type TempFileArgs = { prefix?: string; suffix?: string };
export type StatBatchArgs = { paths: string[] };

export type InstructionArgsByKind = {
  exec: ExecArgs;
  execStream: ExecArgs;
  readTextFile: PathArgs;
  readTextLines: ReadLinesArgs;
  readBinaryFile: PathArgs;
  writeFile: WriteArgs;
  writeFileExclusive: WriteArgs;
  writeFileGuarded: GuardedWriteArgs;
  appendFile: WriteArgs;
  fileInfo: PathArgs;
  listDir: PathArgs;
  canonicalPath: PathArgs;
  exists: PathArgs;
  readLink: PathArgs;
  createDir: RecursiveArgs;
  remove: RecursiveArgs;
  createTempDir: TempDirArgs;
  createTempFile: TempFileArgs;
  statBatch: StatBatchArgs;
};

type C = ReturnType<typeof makeShapeCheck>;
const absPath = (c: C, o: Obj, k = 'path') =>
  c.need(
    typeof o[k] === 'string' && (o[k] as string).startsWith('/'),
    `args.${k} must be an absolute path`,
  );
const write = (c: C, o: Obj) => {
  absPath(c, o);
  c.int(o, 'contentLen', 0);
  c.need(
    typeof o.sha256 === 'string' && SHA256_HEX_PATTERN.test(o.sha256),
    'args.sha256 must be 64 lower-case hex digits',
  );
};

const CHECKS: Record<DeviceInstructionKind, (c: C, o: Obj) => void> = {
  exec: (c, o) => c.str(o, 'command'),
  execStream: (c, o) => c.str(o, 'command'),
  readTextFile: (c, o) => absPath(c, o),
  readTextLines: (c, o) => {
    absPath(c, o);
    c.int(o, 'offset', 0, true);
    c.int(o, 'limit', 0, true);
  },
  readBinaryFile: (c, o) => absPath(c, o),
  writeFile: write,
  writeFileExclusive: write,
  writeFileGuarded: (c, o) => {
    write(c, o);
    const e = o.expect;
    c.need(
      isObject(e) &&
        typeof e.canonicalPath === 'string' &&
        (e.fileId === undefined || typeof e.fileId === 'string') &&
        (e.exclusive === undefined || typeof e.exclusive === 'boolean') &&
        (e.noFollow === undefined || typeof e.noFollow === 'boolean'),
      'args.expect must be { canonicalPath, fileId?, exclusive?, noFollow? }',
    );
  },
  appendFile: write,
  fileInfo: (c, o) => absPath(c, o),
  listDir: (c, o) => absPath(c, o),
  canonicalPath: (c, o) => absPath(c, o),
  exists: (c, o) => absPath(c, o),
  readLink: (c, o) => absPath(c, o),
  createDir: (c, o) => {
    absPath(c, o);
    c.bool(o, 'recursive', true);
  },
  remove: (c, o) => {
    absPath(c, o);
    c.bool(o, 'recursive', true);
  },
  createTempDir: (c, o) => c.str(o, 'prefix', true),
  createTempFile: (c, o) => {
    c.str(o, 'prefix', true);
    c.str(o, 'suffix', true);
  },
  statBatch: (c, o) => c.need(isStringArray(o.paths), 'args.paths must be a string[]'),
};

/** Judges an instruction's args for its kind; the executor answers `invalid` with the message. */
export const parseInstructionArgs = <K extends DeviceInstructionKind>(
  kind: K,
  args: unknown,
): Result<InstructionArgsByKind[K], 'invalid'> => {
  if (!isObject(args)) return err('invalid', 'args must be an object');
  const c = makeShapeCheck();
  CHECKS[kind](c, args);
  return c.problem === null
    ? ok(args as InstructionArgsByKind[K])
    : err('invalid', `${kind}: ${c.problem.startsWith('args.') ? c.problem : `args.${c.problem}`}`);
};
