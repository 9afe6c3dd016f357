import path from 'node:path';
import type { ScriptStep } from './script.ts';
import type { ToolHost } from '../tool-host.ts';

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

export type AgentQuestion = {
  prompt: string;
  options: string[];
  multiSelect: boolean;
  allowFreeText: boolean;
};
/** What the human chose: option labels and/or free text; or why there is no answer. */
export type AgentAnswer =
  { ok: true; labels: string[]; freeText?: string } | { ok: false; why: string };

export type AgentContext = {
  readonly cwd: string;
  readonly signal: AbortSignal;
  host(): ToolHost;
  /** Resolves true only for an explicit allow (phone or desk); never on a timeout. */
  approve(title: string, detail: string): Promise<boolean>;
  ask(question: AgentQuestion): Promise<AgentAnswer>;
  toolStarted(tool: ToolName): void;
  toolFinished(): void;
  assistant(text: string): void;
  sleep(ms: number): Promise<void>;
};

export type TurnOutcome = {
  ok: boolean;
  summary: string;
  /** Set when the summary is a placeholder rather than agent text. */
  placeholder: boolean;
  close: boolean;
};

export const NO_TEXT_SUMMARY = 'The agent ended the turn without a reply.';

const clip = (s: string, n = OUTPUT_IN_SUMMARY_CHARS) => (s.length > n ? s.slice(0, n) + '…' : s);

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
  const done = (ok: boolean, close: boolean): TurnOutcome => {
    const text = summary.join('\n').trim();
    return text === ''
      ? { ok, summary: NO_TEXT_SUMMARY, placeholder: true, close }
      : { ok, summary: text, placeholder: false, close };
  };

  for (const step of steps) {
    if (ctx.signal.aborted) {
      note('Turn stopped.');
      return done(false, false);
    }
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
        const allowed = await ctx.approve('Run a command', `${step.command}\n\nin ${ctx.cwd}`);
        if (!allowed) {
          ctx.toolFinished();
          note(`Not allowed to run: ${step.command}`);
          break;
        }
        const r = await ctx.host().exec({
          command: step.command,
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
            `$ ${step.command}\n${out}${r.value.truncated.stdout || r.value.truncated.stderr ? '\n…[truncated]' : ''}\n(${status})`,
          );
          summary.push(`Ran \`${step.command}\` (${status})${out === '' ? '' : ': ' + clip(out)}`);
        } else {
          note(`run \`${step.command}\` failed (${r.code}): ${r.message}`);
        }
        break;
      }
      case 'write': {
        ctx.toolStarted('write');
        const text = step.fromSummary
          ? `# Dispatch summary\n\n${summary.map((l) => `- ${l.split('\n')[0]}`).join('\n')}\n`
          : step.text;
        const allowed = await ctx.approve(
          `Write ${step.path}`,
          text === '' ? '(empty file)' : text,
        );
        if (!allowed) {
          ctx.toolFinished();
          note(`Not allowed to write ${step.path}`);
          break;
        }
        const r = await ctx.host().writeFile(abs(step.path), text);
        ctx.toolFinished();
        note(
          r.ok
            ? `Wrote ${step.path} (${Buffer.byteLength(text)} bytes)`
            : `write ${step.path} failed (${r.code}): ${r.message}`,
        );
        break;
      }
      case 'ask': {
        ctx.toolStarted('ask');
        const a = await ctx.ask(step);
        ctx.toolFinished();
        if (a.ok) {
          const parts = [...a.labels, ...(a.freeText !== undefined ? [a.freeText] : [])];
          note(`Asked "${step.prompt}": ${parts.join(', ') || '(no answer)'}`);
        } else {
          note(`Asked "${step.prompt}": no answer (${a.why})`);
        }
        break;
      }
    }
  }
  return done(true, false);
}
