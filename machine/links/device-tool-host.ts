import path from 'node:path';
import type { DeviceLane, DispatchHandle, DispatchRequest } from '../../device/lane/index.ts';
import type { DeviceOutcome } from '../../device/wire/index.ts';
import { isInside } from '../dispatch/cwd-guard.ts';
import { MAX_READ_BYTES, MAX_TOOL_OUTPUT_BYTES } from './local-tool-host.ts';
import {
  TOOL_ERROR_CODES,
  type DirEntry,
  type ExecOutput,
  type ToolErrorCode,
  type ToolHost,
  type ToolResult,
} from './tool-host.ts';

// The scripted agent's tools on an enrolled device, over the lane's dispatch. The device serves
// only its own workspace, so a path under one of this machine's allowed roots is re-rooted onto
// the device's workspace root (the same folder when machine and device share a disk, as in the
// demo). Output is always drained, even past the 64 KiB the agent keeps: output the host leaves
// unread counts against the lane's consumer-side bound, past which the lane cancels the command.

type Lane = Pick<DeviceLane, 'dispatch' | 'cancel'>;

export type DeviceToolHostOptions = {
  lane: Lane;
  deviceId: string;
  /** Shown in the terminal and logs. */
  label: string;
  /** The device's workspace root, as it declared it at enrollment. */
  workspaceRoot: string;
  /** This machine's allowed roots: paths under them are mapped onto the workspace root. */
  roots: readonly string[];
};

const fail = (code: ToolErrorCode, message: string) => ({ ok: false as const, code, message });

/** Outcome codes the ToolHost vocabulary lacks keep their wire spelling in the message. */
function failure(o: Extract<DeviceOutcome, { ok: false }>) {
  const code = o.errorCode as string;
  return code in TOOL_ERROR_CODES
    ? fail(code as ToolErrorCode, o.message)
    : fail(code === 'transport_lost' ? 'target_unavailable' : 'unknown', `${code}: ${o.message}`);
}

const unexpected = (o: DeviceOutcome, want: string) =>
  fail('unknown', `the device answered ${o.ok ? o.kind : o.errorCode} where ${want} was expected`);

export function makeDeviceToolHost(o: DeviceToolHostOptions): ToolHost {
  const inflight = new Map<string, Promise<unknown>>();
  let closed = false;

  const toDevice = (p: string): string => {
    const root = o.roots.find((r) => isInside(p, r));
    return root === undefined ? p : path.join(o.workspaceRoot, path.relative(root, p));
  };

  /** Dispatches, drains the output into `sink`, and settles with the outcome. */
  async function run(
    request: DispatchRequest,
    sink: (kind: string, data: Buffer) => void,
    signal?: AbortSignal,
  ): Promise<DeviceOutcome | 'closed'> {
    if (closed) return 'closed';
    const h: DispatchHandle = o.lane.dispatch(o.deviceId, request);
    const onAbort = () => o.lane.cancel(h.instructionId);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    const drained = (async () => {
      for await (const item of h.output) if (item.kind !== 'exit') sink(item.kind, item.data);
    })();
    const done = Promise.all([h.outcome, drained]).then(([outcome]) => outcome);
    inflight.set(h.instructionId, done);
    try {
      return await done;
    } finally {
      inflight.delete(h.instructionId);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    label: o.label,

    async exec({ command, cwd, timeoutMs, signal }) {
      const kept = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
      const size = { stdout: 0, stderr: 0 };
      const truncated = { stdout: false, stderr: false };
      const outcome = await run(
        {
          kind: 'execStream',
          args: { command },
          cwd: toDevice(cwd),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        },
        (kind, data) => {
          if (kind !== 'stdout' && kind !== 'stderr') return;
          const room = MAX_TOOL_OUTPUT_BYTES - size[kind];
          if (data.length > room) truncated[kind] = true;
          if (room <= 0) return;
          const part = data.subarray(0, room);
          kept[kind].push(part);
          size[kind] += part.length;
        },
        signal,
      );
      if (outcome === 'closed') return fail('aborted', `the tool host is closed: ${command}`);
      if (!outcome.ok) return failure(outcome);
      if (outcome.kind === 'cancelled') return fail('aborted', `cancelled: ${command}`);
      if (outcome.kind !== 'exec') return unexpected(outcome, 'exec');
      const value: ExecOutput = {
        exitCode: outcome.exitCode,
        stdout: Buffer.concat(kept.stdout).toString('utf8'),
        stderr: Buffer.concat(kept.stderr).toString('utf8'),
        truncated: {
          stdout: truncated.stdout || outcome.truncated?.stdout === true,
          stderr: truncated.stderr || outcome.truncated?.stderr === true,
        },
      };
      return { ok: true, value };
    },

    async readTextFile(p) {
      const parts: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const outcome = await run({ kind: 'readTextFile', args: { path: toDevice(p) } }, (_, d) => {
        const room = MAX_READ_BYTES - size;
        if (d.length > room) truncated = true;
        if (room <= 0) return;
        parts.push(d.subarray(0, room));
        size += Math.min(room, d.length);
      });
      if (outcome === 'closed') return fail('aborted', `the tool host is closed: read ${p}`);
      if (!outcome.ok) return failure(outcome);
      if (outcome.kind !== 'read') return unexpected(outcome, 'read');
      return { ok: true, value: { text: Buffer.concat(parts).toString('utf8'), truncated } };
    },

    async writeFile(p, content) {
      const outcome = await run(
        { kind: 'writeFile', args: { path: toDevice(p) }, content: Buffer.from(content, 'utf8') },
        () => undefined,
      );
      if (outcome === 'closed') return fail('aborted', `the tool host is closed: write ${p}`);
      if (!outcome.ok) return failure(outcome);
      if (outcome.kind !== 'write') return unexpected(outcome, 'write');
      return {
        ok: true,
        value: { canonicalPath: outcome.canonicalPath, created: outcome.created === true },
      };
    },

    async createDir(p): Promise<ToolResult<void>> {
      const outcome = await run(
        { kind: 'createDir', args: { path: toDevice(p), recursive: true } },
        () => undefined,
      );
      if (outcome === 'closed') return fail('aborted', `the tool host is closed: create ${p}`);
      if (!outcome.ok) return failure(outcome);
      if (outcome.kind !== 'void') return unexpected(outcome, 'void');
      return { ok: true, value: undefined };
    },

    async listDir(p): Promise<ToolResult<DirEntry[]>> {
      const outcome = await run({ kind: 'listDir', args: { path: toDevice(p) } }, () => undefined);
      if (outcome === 'closed') return fail('aborted', `the tool host is closed: list ${p}`);
      if (!outcome.ok) return failure(outcome);
      if (outcome.kind !== 'stat' || outcome.entries === undefined) {
        return unexpected(outcome, 'a listing');
      }
      const entries = outcome.entries
        .map((e) => ({ name: path.posix.basename(e.path), kind: e.kind, size: e.size }))
        .sort((a, b) => a.name.localeCompare(b.name));
      return { ok: true, value: entries };
    },

    async close() {
      closed = true;
      for (const id of inflight.keys()) o.lane.cancel(id);
      await Promise.allSettled([...inflight.values()]);
    },
  };
}
