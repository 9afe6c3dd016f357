// The executor's public surface: the in-process API for tests, scripts and hosts, and the CLI.
export {
  startExecutor,
  ExecutorStartError,
  EXECUTOR_VERSION,
  EXECUTOR_EXIT_REASONS,
  EXECUTOR_START_ERRORS,
  type Executor,
  type ExecutorEvent,
  type ExecutorExit,
  type ExecutorExitReason,
  type ExecutorOptions,
  type ExecutorStatus,
} from './executor.ts';
export {
  enrollDevice,
  ENROLL_ERRORS,
  ENROLLMENT_INVALID_MESSAGE,
  type EnrollOptions,
  type EnrollResult,
} from './enroll.ts';
export { runCli, EXIT_CODES } from './cli.ts';
export { SUPPORTED_KINDS } from './tasks.ts';
export { realTimers, type TimerHandle, type Timers } from '../timers.ts';
export { makeJsonLogger, silentLogger, type Logger } from './log.ts';
