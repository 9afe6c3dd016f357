// Where the scripted agent's tools run. The local host runs them on this machine in the
// session's folder; the device host (device-tool-host.ts) runs them on an enrolled device
// over the device lane. Error codes are spelled like the device protocol's outcome codes
// (the device protocol's §3.3, docs/device.md) so a device host passes them through unchanged and the
// phone sees the same steps, outputs and errors whichever host ran the tool.

export const TOOL_ERROR_CODES = {
  not_found: 'not_found',
  permission_denied: 'permission_denied',
  is_directory: 'is_directory',
  not_directory: 'not_directory',
  already_exists: 'already_exists',
  invalid: 'invalid',
  spawn_error: 'spawn_error',
  shell_unavailable: 'shell_unavailable',
  timeout: 'timeout',
  aborted: 'aborted',
  outcome_unknown: 'outcome_unknown',
  target_unavailable: 'target_unavailable',
  unknown: 'unknown',
} as const;
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[keyof typeof TOOL_ERROR_CODES];

export type ToolResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: ToolErrorCode; readonly message: string };

export type ExecRequest = {
  /** Run by the user's shell (`$SHELL -c`, else /bin/sh), in its own process group. */
  readonly command: string;
  /** Absolute folder the command runs in. */
  readonly cwd: string;
  readonly timeoutMs?: number;
  /** Aborting kills the whole process group (TERM, a grace, then KILL). */
  readonly signal?: AbortSignal;
};

export type ExecOutput = {
  readonly exitCode: number | null;
  /** Set when the command died of a signal. */
  readonly signal?: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly truncated: { readonly stdout: boolean; readonly stderr: boolean };
};

export const FILE_KINDS = { file: 'file', dir: 'dir', symlink: 'symlink', other: 'other' } as const;
export type FileKind = (typeof FILE_KINDS)[keyof typeof FILE_KINDS];
export type DirEntry = { readonly name: string; readonly kind: FileKind; readonly size: number };

export type TextRead = { readonly text: string; readonly truncated: boolean };
export type WriteReceipt = { readonly canonicalPath: string; readonly created: boolean };

/** Every path is absolute: the agent resolves it against the session's cwd before calling. */
export interface ToolHost {
  /** Shown in the terminal and logs: `local`, or the device's name. */
  readonly label: string;
  exec(request: ExecRequest): Promise<ToolResult<ExecOutput>>;
  readTextFile(path: string): Promise<ToolResult<TextRead>>;
  writeFile(path: string, content: string): Promise<ToolResult<WriteReceipt>>;
  /** The folder and any missing parents (an existing folder is fine), as the device's createDir. */
  createDir(path: string): Promise<ToolResult<void>>;
  listDir(path: string): Promise<ToolResult<DirEntry[]>>;
  /** Kills whatever still runs (whole process groups) and waits until it is gone. */
  close(): Promise<void>;
}

/** Picks the host for each tool call, so a device that connects mid-session takes over. */
export type ToolHostProvider = () => ToolHost;
