import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  InitializeResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import { killMarked, killTree, newRunMark, RUN_MARK_ENV } from '../process-tree.ts';
import type { AcpAgentSpec } from './declare.ts';

// One ACP agent process and the client connection to it (newline-delimited JSON-RPC on stdio,
// @agentclientprotocol/sdk 2.x). The process leads a group of its own, so the machine can end it
// with whatever it started (Gemini re-executes itself as a child and ignores SIGTERM; each of its
// commands runs in yet another group: killTree reads the tree from /proc first).

const STDERR_TAIL_CHARS = 2000;

export type AcpHandlers = {
  update(n: SessionNotification): void;
  permission(r: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  elicitation(r: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse>;
};

export type AcpProcess = {
  readonly pid: number;
  readonly conn: acp.ClientConnection;
  readonly init: InitializeResponse;
  /** Resolves with why the process ended (exit code or signal, and the end of its stderr). */
  readonly exited: Promise<string>;
  kill(): void;
};

/** Starts the agent and completes `initialize`; a process that cannot is ended, and it throws. */
export async function startAcp(
  spec: AcpAgentSpec,
  cwd: string,
  env: NodeJS.ProcessEnv,
  h: AcpHandlers,
): Promise<AcpProcess> {
  // E10 faults: every process of this agent carries the run's mark, so a command in a group of
  // its own that outlives a dead agent (an orphan no parent pid leads to) is still found.
  const mark = newRunMark();
  const child: ChildProcess = spawn(spec.command, spec.args, {
    cwd,
    env: { ...env, ...spec.env, [RUN_MARK_ENV]: mark },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let tail = '';
  child.stderr!.on('data', (d: Buffer) => {
    tail = (tail + d.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  const exited = new Promise<string>((resolve) => {
    child.once('error', (e) => resolve(e.message));
    child.once('exit', (code, signal) => {
      const last = tail.trim().split('\n').slice(-3).join('\n');
      resolve(`${signal ?? `exit ${code}`}${last !== '' ? `: ${last}` : ''}`);
    });
  });
  // A write to a closed stdin must not take the machine down: the exit is reported instead.
  child.stdin!.on('error', () => {});
  const conn = acp
    .client({ name: 'dsh-dispatch' })
    .onNotification('session/update', (c) => h.update(c.params))
    .onRequest('session/request_permission', (c) => h.permission(c.params, c.signal))
    .onRequest('elicitation/create', (c) => h.elicitation(c.params, c.signal))
    .connect(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      ),
    );
  const kill = () => {
    if (child.pid !== undefined) killTree(child.pid);
    killMarked(mark);
    conn.close();
  };
  void exited.then((why) => conn.close(new Error(`${spec.name} stopped (${why})`)));
  try {
    const init = await Promise.race([
      conn.agent.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        // Questions come as forms (Claude's AskUserQuestion). No fs or terminal: the agent does
        // its own reads, writes and commands, each behind its permission request.
        clientCapabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'dsh-dispatch', version: '1' },
      }),
      exited.then((why) => Promise.reject(new Error(`${spec.name} stopped (${why})`))),
    ]);
    return { pid: child.pid!, conn, init, exited, kill };
  } catch (e) {
    kill();
    throw e;
  }
}
