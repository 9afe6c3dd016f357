import type { ToolHost, ToolErrorCode, ToolResult } from './tool-host.ts';

// The spec's `error` is for "any surfaced failure (worktree fail, spawn fail…)". A tool that ran
// and answered not_found is the agent's business (it goes into the transcript and summary); a
// host that could not run the tool at all — the shell would not start, the device went away, the
// outcome is unknown — is a failure the phone must see pinned to the session, whichever host it
// was. The wrapper reports those and passes every result through unchanged.

export const HOST_FAILURE_CODES: ReadonlySet<ToolErrorCode> = new Set<ToolErrorCode>([
  'spawn_error',
  'shell_unavailable',
  'timeout',
  'outcome_unknown',
  'target_unavailable',
  'unknown',
]);

export function reportingHost(
  host: ToolHost,
  report: (code: ToolErrorCode, message: string) => void,
): ToolHost {
  const seen = async <T>(p: Promise<ToolResult<T>>): Promise<ToolResult<T>> => {
    const r = await p;
    if (!r.ok && HOST_FAILURE_CODES.has(r.code)) report(r.code, `${host.label}: ${r.message}`);
    return r;
  };
  return {
    label: host.label,
    exec: (req) => seen(host.exec(req)),
    readTextFile: (p) => seen(host.readTextFile(p)),
    writeFile: (p, c) => seen(host.writeFile(p, c)),
    createDir: (p) => seen(host.createDir(p)),
    listDir: (p) => seen(host.listDir(p)),
    close: () => host.close(),
  };
}
