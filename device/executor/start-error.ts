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
  protocol_version_unsupported: 'protocol_version_unsupported',
} as const;
export type ExecutorStartErrorCode = keyof typeof EXECUTOR_START_ERRORS;

export class ExecutorStartError extends Error {
  constructor(
    readonly code: ExecutorStartErrorCode,
    message: string,
  ) {
    super(message);
  }
}
