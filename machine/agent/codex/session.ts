import type { AccessLevel } from '../../../protocol/index.ts';
import type { Timeouts } from '../../../protocol/timers.ts';
import { realTimers } from '../../timers.ts';
import type { Launch } from '../find-binary.ts';
import type { TurnOutcome } from '../runner.ts';
import { resolveCodex } from './binary.ts';
import type { CodexContext } from './context.ts';
import { shaped } from './parse.ts';
import { endProcesses, startedSince, treeOf } from './process-tree.ts';
import { startAppServer, type AppServer } from './rpc.ts';
import { makeTurn, stoppedText, type CodexTurn, type TurnEnd } from './turn.ts';
import type { InitializeParams } from './generated/InitializeParams.ts';
import type { AskForApproval } from './generated/v2/AskForApproval.ts';
import type { SandboxMode } from './generated/v2/SandboxMode.ts';
import type { ThreadResumeParams } from './generated/v2/ThreadResumeParams.ts';
import type { ThreadStartParams } from './generated/v2/ThreadStartParams.ts';
import type { ThreadStartResponse } from './generated/v2/ThreadStartResponse.ts';
import type { TurnInterruptParams } from './generated/v2/TurnInterruptParams.ts';
import type { TurnStartParams } from './generated/v2/TurnStartParams.ts';
import type { TurnStartResponse } from './generated/v2/TurnStartResponse.ts';

// A Codex session: one thread, driven through `codex app-server`. The process starts on the
// first turn (`thread/start`, or `thread/resume` when a thread id was stored); a turn that fails
// or is stopped past its backstop ends the process, and the next turn starts a new one that
// resumes the thread. Approvals are always asked (`on-request`, `untrusted` under full access) and
// the sandbox follows the session's access level; nothing here ever bypasses either.

/** Stop (E4): how long `turn/interrupt` may take before the process is killed. */
export const INTERRUPT_BACKSTOP_MS = 3_000;
/** Stop (E4): a command the turn started gets this long after SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 500;

/** The sandbox per dispatch access level. */
export const SANDBOX_BY_ACCESS: Record<AccessLevel, SandboxMode> = {
  standard: 'workspace-write',
  full: 'danger-full-access',
};
/**
 * E10: full access never turns approvals off, for any agent. Under `danger-full-access` Codex's
 * `on-request` asks nothing at all (seen with 0.171.0), so `full` asks under `untrusted`: every
 * command Codex does not know to be read-only comes to the phone. Codex calls `untrusted`
 * deprecated; when it goes, full access for Codex must go with it, not start asking less.
 */
export const APPROVAL_POLICY_BY_ACCESS: Record<AccessLevel, AskForApproval> = {
  standard: 'on-request',
  full: 'untrusted',
};

/** `request_user_input` is off by default in 0.171; questions need it (E10). */
export const APP_SERVER_ARGS = ['app-server', '--enable', 'default_mode_request_user_input'];

/** The Codex in agents/node_modules (E10 packaging); the not-found line when it is not there. */
function packagedCodex(): Launch {
  const found = resolveCodex(undefined, '');
  if (!found.ok) throw new Error(found.message);
  return found.launch;
}

export type CodexSessionOptions = {
  cwd: string;
  access: AccessLevel;
  /** What runs `codex` (binary.ts); the one in agents/node_modules when absent. */
  codex?: Launch;
  /** More `codex app-server` flags (tests: `--disable plugins` …). */
  extraArgs?: readonly string[];
  /** The agent's environment; this process's when absent (the user's own Codex settings). */
  env?: NodeJS.ProcessEnv;
  /** A stored thread id to continue (`thread/resume`); absent = a new thread. */
  resume?: string;
  log?(message: string): void;
  /** T3: arms the Stop backstop (E4) and the E11 steer limit; tests drive them with the manual clock. */
  timers?: Timeouts;
};

export type CodexSession = ReturnType<typeof makeCodexSession>;

export function makeCodexSession(o: CodexSessionOptions) {
  let threadId: string | null = o.resume ?? null;
  let model: string | null = null;
  let server: AppServer | null = null;
  let opening: Promise<AppServer> | null = null;
  let turn: CodexTurn | null = null;
  let closed = false;
  /** E11: deny messages not yet told to the model. */
  const notes: string[] = [];
  /** The stored thread could not be resumed (Codex no longer has it): the caller decides. */
  let resumeFailed = false;
  /** Cleanups of app-servers that died by themselves, awaited before a turn reports the end. */
  const dying = new Set<Promise<void>>();
  const timers = o.timers ?? realTimers();

  const threadParams = {
    cwd: o.cwd,
    approvalPolicy: APPROVAL_POLICY_BY_ACCESS[o.access],
    sandbox: SANDBOX_BY_ACCESS[o.access],
  };

  async function start(ctx: CodexContext): Promise<AppServer> {
    const bin = o.codex ?? packagedCodex();
    const s = startAppServer({
      command: bin.command,
      args: [...bin.args, ...APP_SERVER_ARGS, ...(o.extraArgs ?? [])],
      cwd: o.cwd,
      env: o.env ?? process.env,
      onNotification: (method, params) => turn?.notification(method, params),
      onRequest: (method, params, id) => {
        if (turn !== null) turn.request(method, params, id);
        else s.respondError(id, -32000, 'no turn is running');
      },
      onBadLine: (m) => o.log?.(`codex: ${m}`),
    });
    void s.exited.then((e) => {
      if (server === s) server = null;
      // Codex died by itself: what it started may still run, orphaned; the turn ends after it.
      const ending = s.close();
      dying.add(ending);
      void ending.finally(() => dying.delete(ending));
      const tail = e.stderr.trim().split('\n').at(-1) ?? '';
      turn?.lost(
        `Codex stopped unexpectedly (${e.signal ?? `exit ${e.code}`})${tail ? `: ${tail}` : ''}`,
      );
    });
    try {
      const init: InitializeParams = {
        clientInfo: { name: 'dsh-dispatch', title: 'dsh-dispatch', version: '1' },
        capabilities: null,
      };
      await s.request('initialize', init);
      s.notify('initialized');
      const opened =
        threadId === null
          ? await s.request('thread/start', threadParams satisfies ThreadStartParams)
          : await s
              .request('thread/resume', { threadId, ...threadParams } satisfies ThreadResumeParams)
              .catch((e: Error) => {
                resumeFailed = true;
                throw new Error(`cannot resume thread ${threadId}: ${e.message}`);
              });
      const r = shaped<ThreadStartResponse>(opened, { thread: 'object', model: 'string' });
      if (r === null || typeof r.thread.id !== 'string')
        throw new Error('codex app-server answered thread/start without a thread');
      threadId = r.thread.id;
      model = r.model;
      server = s;
      ctx.model?.(model);
      ctx.nativeSession?.(threadId);
      return s;
    } catch (e) {
      await s.close();
      throw e;
    }
  }

  async function serverFor(ctx: CodexContext): Promise<AppServer> {
    if (server !== null) return server;
    opening ??= start(ctx).finally(() => (opening = null));
    server = await opening;
    return server;
  }

  async function stop(): Promise<void> {
    const s = server;
    server = null;
    await s?.close();
    await Promise.all(dying);
  }

  async function runTurn(prompt: string, ctx: CodexContext): Promise<TurnOutcome> {
    if (closed)
      return {
        ok: false,
        summary: 'The Codex session is closed.',
        placeholder: false,
        close: true,
      };
    let s: AppServer;
    const starting = serverFor(ctx);
    // Stop (E4) while Codex is still starting: the turn ends now, the process once it is up.
    let onEarlyStop = () => {};
    const stopped = new Promise<null>((resolve) => {
      onEarlyStop = () => resolve(null);
      ctx.signal.addEventListener('abort', onEarlyStop, { once: true });
    });
    try {
      const first = await Promise.race([starting, stopped]);
      if (first === null) {
        void starting.then(stop, () => {});
        const text = stoppedText(ctx.signal.reason);
        ctx.assistant(text);
        return { ok: false, summary: text, placeholder: false, close: false };
      }
      s = first;
    } catch (e) {
      const text = `Codex could not start: ${(e as Error).message}`;
      ctx.assistant(text);
      return { ok: false, summary: text, placeholder: false, close: false };
    } finally {
      ctx.signal.removeEventListener('abort', onEarlyStop);
    }
    const t = makeTurn(s, threadId!, o.cwd, ctx, notes, timers);
    const before = new Set(treeOf(s.pid).map((p) => p.pid));
    turn = t;
    let backstop: ReturnType<Timeouts['setTimeout']> | undefined;
    // Once the backstop fired, the turn is reported only after the process is gone: Codex may
    // still say "interrupted" on its way out, before it has exited.
    let ending: Promise<void> | undefined;
    const interrupt = (turnId: string) =>
      void s
        .request('turn/interrupt', { threadId: threadId!, turnId } satisfies TurnInterruptParams)
        .catch(() => {});
    const onStop = () => {
      if (t.turnId !== null) interrupt(t.turnId);
      backstop = timers.setTimeout(() => {
        o.log?.('codex: turn/interrupt got no answer in time; ending the process');
        ending = stop().then(() => t.lost('stopped'));
      }, INTERRUPT_BACKSTOP_MS);
    };
    ctx.signal.addEventListener('abort', onStop, { once: true });
    let end: TurnEnd;
    try {
      const input: TurnStartParams = {
        threadId: threadId!,
        // The prompt goes as typed; E11 notes from the last turn's denials come before it.
        input: [
          ...notes.splice(0).map((text) => ({ type: 'text' as const, text, text_elements: [] })),
          { type: 'text', text: prompt, text_elements: [] },
        ],
      };
      const started = shaped<TurnStartResponse>(await s.request('turn/start', input), {
        turn: 'object',
      });
      if (started === null || typeof started.turn.id !== 'string')
        throw new Error('codex app-server answered turn/start without a turn');
      t.started(started.turn.id);
      // A stop that came while the turn was being started reaches it now.
      if (ctx.signal.aborted) interrupt(started.turn.id);
      end = await t.ended;
    } catch (e) {
      t.lost((e as Error).message);
      end = await t.ended;
    } finally {
      if (backstop !== undefined) timers.clearTimeout(backstop);
      ctx.signal.removeEventListener('abort', onStop);
      turn = null;
    }
    if (ending !== undefined) await ending;
    if (ctx.signal.aborted && end.status !== 'completed')
      end = { status: 'interrupted', error: null };
    // E4: Codex's interrupt does not always end the command in time; what this turn started and
    // still runs ends here, its whole group, before the turn is reported stopped.
    if (end.status === 'interrupted' && server === s)
      await endProcesses(startedSince(s.pid, before), STOP_GRACE_MS);
    // A failed turn leaves no process behind; the next one resumes the thread in a new one.
    if (end.status !== 'completed' && end.status !== 'interrupted') await stop();
    return t.outcome(end, ctx.signal.reason);
  }

  return {
    get threadId() {
      return threadId;
    },
    get model() {
      return model;
    },
    /** True once `thread/resume` failed; `forgetThread()` makes the next turn start a new one. */
    get resumeFailed() {
      return resumeFailed;
    },
    forgetThread(): void {
      threadId = null;
      resumeFailed = false;
    },
    /** The app-server's pid while one runs (tests check it is gone). */
    get pid() {
      return server?.pid ?? null;
    },
    runTurn,
    async close(): Promise<void> {
      closed = true;
      if (opening !== null) await opening.catch(() => {});
      turn?.lost('the session was closed');
      await stop();
    },
  };
}
