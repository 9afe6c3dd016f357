import {
  dispatchChallengeText,
  dispatchContentHash,
  dispatchNeedsPresence,
  MAX_PROMPT_BYTES,
  MAX_PROMPT_CHARS,
  textLimitReason,
  type DispatchRequest,
  type DispatchResult,
  type ReasonCode,
} from '../../protocol/index.ts';
import type { Core } from '../core.ts';
import { checkCwd, rootOf } from './cwd-guard.ts';
import type { Turns } from '../sessions/turns.ts';
import { addWorktree } from './worktree.ts';

// dispatch.request → dispatch.result. Every refusal is visible (ok:false with a reason code),
// never a silent clamp: dispatch off, full access off, prompt limits, the cwd guard, a failed
// worktree. Outside a git repository a worktree request runs in place with a note.

export async function runDispatch(
  m: DispatchRequest,
  deps: { core: Core; turns: Turns; roots: readonly string[]; allowFullAccess: boolean },
): Promise<DispatchResult> {
  const { core, turns } = deps;
  const now = () => core.timers.now();
  const refuse = (reason: ReasonCode, error: string): DispatchResult => ({
    v: 1,
    type: 'dispatch.result',
    ts: now(),
    requestId: m.requestId,
    ok: false,
    error,
    reason,
  });
  const access = m.access ?? 'standard';
  if (deps.roots.length === 0)
    return refuse(
      'dispatch-disabled',
      'dispatch is off on this machine: start it with --root <folder>',
    );
  if (access === 'full' && !deps.allowFullAccess) {
    return refuse(
      'full-access-disabled',
      'full access is off on this machine: start it with --allow-full-access',
    );
  }
  // E7: a full-access dispatch needs verified presence under any presence policy.
  if (dispatchNeedsPresence(core.presence.requirement, access)) {
    const text = dispatchChallengeText({
      roomId: core.roomId(),
      requestId: m.requestId,
      ts: m.ts,
      content: dispatchContentHash(m),
    });
    const refused = core.presence.check(m.presence, text);
    if (refused !== null) return refuse(refused.reason, refused.message);
  }
  const promptLimit = textLimitReason(m.prompt, 'prompt');
  if (promptLimit !== null) {
    return refuse(
      promptLimit,
      promptLimit === 'prompt-too-long-chars'
        ? `the prompt is longer than ${MAX_PROMPT_CHARS} characters`
        : `the prompt is larger than ${MAX_PROMPT_BYTES} bytes`,
    );
  }
  if (m.prompt.trim() === '') return refuse('dispatch-failed', 'the prompt is empty');
  // E10: an agent this machine does not offer is refused before anything is made for it.
  const agent = m.agent ?? core.agents.default;
  if (agent === undefined || core.agents.get(agent) === undefined) {
    return refuse(
      'agent-unavailable',
      agent === undefined
        ? 'no agent can start on this machine'
        : `agent "${agent}" is not available here (offered: ${core.agents.names.join(', ') || 'none'})`,
    );
  }
  const cwd = await checkCwd(m.cwd, deps.roots);
  if (!cwd.ok) return refuse(cwd.reason, cwd.message);
  let runIn = cwd.cwd;
  let note: { note: string; reason: ReasonCode } | null = null;
  let worktree: { path: string; branch: string } | undefined;
  if (m.worktree) {
    const shortId = m.requestId.replace(/[^A-Za-z0-9]/g, '').slice(0, 12) || String(now());
    const w = await addWorktree(cwd.cwd, shortId, deps.roots);
    if (!w.ok) return refuse(w.reason, w.message);
    if (w.kind === 'not-a-git-repo') {
      note = { note: 'ran without worktree: not a git repo', reason: 'not-a-git-repo' };
    } else {
      runIn = w.cwd;
      worktree = { path: w.worktreePath, branch: w.branch };
    }
  }
  // The most specific allowed root holding the folder: what later per-root rules (E2) key on.
  const root = rootOf(cwd.cwd, deps.roots);
  const s = core.sessions.create({
    prompt: m.prompt,
    cwd: runIn,
    root,
    dispatched: true,
    access,
    now: now(),
    ...(worktree ? { worktree } : {}),
    agent,
  });
  core.log(
    'info',
    'dispatched',
    `session ${s.sessionId.slice(0, 8)} (${agent}) in ${runIn}${access === 'full' ? ' with FULL ACCESS' : ''}`,
  );
  turns.start(s, m.prompt);
  return {
    v: 1,
    type: 'dispatch.result',
    ts: now(),
    requestId: m.requestId,
    ok: true,
    sessionId: s.sessionId,
    ...(note ?? {}),
  };
}
