// Why startExecutor refused to start: a stable code and a message for the user.
export const EXECUTOR_START_ERRORS = {
  not_enrolled: 'not_enrolled',
  key_unusable: 'key_unusable',
  locked: 'locked',
  workspace_missing: 'workspace_missing',
  workspace_refused: 'workspace_refused',
  lane_off: 'lane_off',
  insecure_server_url: 'insecure_server_url',
  bad_server_url: 'bad_server_url',
  unreachable: 'unreachable',
  bad_capabilities: 'bad_capabilities',
  protocol_version_unsupported: 'protocol_version_unsupported',
} as const;
export type ExecutorStartErrorCode = keyof typeof EXECUTOR_START_ERRORS;

export class ExecutorStartError extends Error {
  constructor(
    readonly code: ExecutorStartErrorCode,
    message: string,
    /** The finer reason where one code covers several (bad_capabilities: H8's refusals). */
    readonly reason?: string,
  ) {
    super(message);
  }
}
