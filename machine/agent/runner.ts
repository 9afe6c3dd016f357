import path from 'node:path';
import type { ScriptStep } from './script.ts';
import { outcomeOf, type AgentContext, type Refusal, type TurnOutcome } from './agent.ts';
import type { ToolHost } from '../links/tool-host.ts';

// Runs one turn of the scripted agent. Everything that reaches a human (approvals, questions,
// activity, transcript, summary) goes through the context, so the runner knows nothing about
// the wire; tools go through the ToolHost the context hands out for each call.

export const TOOL_NAMES = {
  run: 'run',
  read: 'read',
  list: 'list',
  write: 'write',
  ask: 'ask',
} as const;
export type ToolName = (typeof TOOL_NAMES)[keyof typeof TOOL_NAMES];

export const RUN_TIMEOUT_MS = 120_000;
const OUTPUT_IN_SUMMARY_CHARS = 400;

export {
  NO_TEXT_SUMMARY,
  REFUSALS,
  type AgentAnswer,
  type AgentContext,
  type AgentQuestion,
  type ApprovalAnswer,
  type Refusal,
  type TurnOutcome,
} from './agent.ts';

/**
 * An agent's Write tool creates the folders a new file needs; the host's writeFile (like the
 * device's) does not, so a write refused with not_found makes its folder and is tried once more.
 */
async function writeMakingFolders(host: ToolHost, file: string, text: string) {
  const first = await host.writeFile(file, text);
  if (first.ok || first.code !== 'not_found') return first;
  const made = await host.createDir(path.dirname(file));
  return made.ok ? host.writeFile(file, text) : first;
}

const clip = (s: string, n = OUTPUT_IN_SUMMARY_CHARS) => (s.length > n ? s.slice(0, n) + '…' : s);

/** U5: said in the transcript and the summary when a tool did not run; never "ran" or "wrote". */
const REFUSED_PREFIX: Record<Refusal, string> = {
  denied: 'Denied',
  expired: 'Approval expired',
  cancelled: 'Approval cancelled',
};
/** E11: the owner's message with a deny, as the agent is told it. */
const saying = (message?: string) => (message === undefined ? '' : `\nThe owner said: ${message}`);
export const notRun = (why: Refusal, command: string, message?: string): string =>
  `${REFUSED_PREFIX[why]}: \`${command}\` was not run.${saying(message)}`;
export const notWritten = (why: Refusal, file: string, message?: string): string =>
  `${REFUSED_PREFIX[why]}: ${file} was not written.${saying(message)}`;

export async function runTurn(
  steps: readonly ScriptStep[],
  ctx: AgentContext,
): Promise<TurnOutcome> {
  const summary: string[] = [];
  const note = (line: string) => {
    summary.push(line);
    ctx.assistant(line);
  };
  const abs = (p: string) => path.resolve(ctx.cwd, p);
  /** What became of each write this turn: `written`, or why it was not (the demo's ending). */
  const writes = new Map<string, string>();
  const done = (ok: boolean, close: boolean): TurnOutcome =>
    outcomeOf(ok, summary.join('\n'), close);

  const stopped = (): TurnOutcome => {
    const why: unknown = ctx.signal.reason;
    note(typeof why === 'string' ? `Turn stopped: ${why}.` : 'Turn stopped.');
    return done(false, false);
  };
  for (const step of steps) {
    if (ctx.signal.aborted) return stopped();
    switch (step.kind) {
      case 'say':
        note(step.text);
        break;
      case 'sleep':
        await ctx.sleep(step.ms);
        break;
      case 'fail':
        note(step.message);
        return done(false, false);
      case 'close':
        return done(true, true);
      case 'list': {
        ctx.toolStarted('list');
        const r = await ctx.host().listDir(abs(step.path));
        ctx.toolFinished();
        note(
          r.ok
            ? `Listed ${step.path}: ${r.value.map((e) => (e.kind === 'dir' ? e.name + '/' : e.name)).join(', ') || '(empty)'}`
            : `list ${step.path} failed (${r.code}): ${r.message}`,
        );
        break;
      }
      case 'read': {
        ctx.toolStarted('read');
        const r = await ctx.host().readTextFile(abs(step.path));
        ctx.toolFinished();
        if (r.ok) {
          ctx.assistant(
            `Read ${step.path}:\n${r.value.text}${r.value.truncated ? '\n…[truncated]' : ''}`,
          );
          summary.push(
            `Read ${step.path} (${r.value.text.length} chars): ${clip(r.value.text.split('\n')[0] ?? '', 80)}`,
          );
        } else {
          note(`read ${step.path} failed (${r.code}): ${r.message}`);
        }
        break;
      }
      case 'run': {
        ctx.toolStarted('run');
        const answer = await ctx.approve({
          tool: 'run',
          title: 'Run a command',
          detail: `${step.command}\n\nin ${ctx.cwd}`,
          command: step.command,
        });
        if (!answer.allowed) {
          ctx.toolFinished(answer.why);
          note(notRun(answer.why, step.command, answer.message));
          break;
        }
        // E3: exactly what the human allowed, the edited line when there is one.
        const command = answer.edited ?? step.command;
        const r = await ctx.host().exec({
          command,
          cwd: ctx.cwd,
          timeoutMs: RUN_TIMEOUT_MS,
          signal: ctx.signal,
        });
        ctx.toolFinished();
        if (r.ok) {
          const out = (r.value.stdout + r.value.stderr).trimEnd();
          const status =
            r.value.exitCode === null ? `signal ${r.value.signal}` : `exit ${r.value.exitCode}`;
          ctx.assistant(
            `$ ${command}\n${out}${r.value.truncated.stdout || r.value.truncated.stderr ? '\n…[truncated]' : ''}\n(${status})`,
          );
          summary.push(`Ran \`${command}\` (${status})${out === '' ? '' : ': ' + clip(out)}`);
        } else {
          note(`run \`${command}\` failed (${r.code}): ${r.message}`);
        }
        break;
      }
      case 'write': {
        ctx.toolStarted('write');
        const text = step.fromSummary
          ? `# Dispatch summary\n\n${summary.map((l) => `- ${l.split('\n')[0]}`).join('\n')}\n`
          : step.text;
        const answer = await ctx.approve({
          tool: 'write',
          title: `Write ${step.path}`,
          detail: text === '' ? '(empty file)' : text,
          path: abs(step.path),
        });
        if (!answer.allowed) {
          ctx.toolFinished(answer.why);
          writes.set(step.path, answer.why);
          note(notWritten(answer.why, step.path, answer.message));
          break;
        }
        const r = await writeMakingFolders(ctx.host(), abs(step.path), text);
        ctx.toolFinished();
        writes.set(step.path, r.ok ? 'written' : `failed: ${r.code}`);
        note(
          r.ok
            ? `Wrote ${step.path} (${Buffer.byteLength(text)} bytes)`
            : `write ${step.path} failed (${r.code}): ${r.message}`,
        );
        break;
      }
      case 'ask': {
        ctx.toolStarted('ask');
        const a = await ctx.ask([step]);
        ctx.toolFinished(a.ok ? undefined : a.why);
        if (a.ok) {
          const c = a.choices[0] ?? { labels: [] };
          const parts = [...c.labels, ...(c.freeText !== undefined ? [c.freeText] : [])];
          note(`Asked "${step.prompt}": ${parts.join(', ') || '(no answer)'}`);
        } else {
          note(`Asked "${step.prompt}": no answer (${a.why})`);
        }
        break;
      }
      case 'conclude': {
        const outcome = writes.get(step.wrote);
        note(
          outcome === 'written'
            ? `Looked around the folder and wrote ${step.wrote}.`
            : `Looked around the folder; ${step.wrote} was not written (${outcome ?? 'not attempted'}).`,
        );
        break;
      }
    }
  }
  // A stop during the last step still ends the turn as stopped, not as finished.
  return ctx.signal.aborted ? stopped() : done(true, false);
}
