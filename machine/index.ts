// The mock machine's public surface: the in-process handle and the tool-host seam.
export { createMachine, MachineStartError, PLUGIN_VERSION } from './machine.ts';
export type {
  MachineHandle,
  MachineOptions,
  MachineEvents,
  MachineStatusView,
  LocalResult,
} from './machine.ts';
export type {
  ToolHost,
  ToolHostProvider,
  ToolResult,
  ToolErrorCode,
  ExecRequest,
  ExecOutput,
  DirEntry,
} from './tool-host.ts';
export { TOOL_ERROR_CODES } from './tool-host.ts';
export { makeLocalToolHost } from './local-tool-host.ts';
export type { Timers } from './timers.ts';
