import { createHash } from 'node:crypto';
import { WebSocket } from 'ws';
import type { AgentContext, AgentProvider } from '../agent/agent.ts';
import { geminiProvider } from '../agent/acp/provider.ts';
import { claudeProvider } from '../agent/claude/provider.ts';
import { codexProvider } from '../agent/codex/provider.ts';
import { mockProvider } from '../agent/mock/provider.ts';
import { consoleLog } from '../log.ts';
import { createMachine } from '../machine.ts';

// The machine `npm run bench:agents` measures, as a process of its own (bundled, plain node, so
// its RSS is a machine's and not the bench's): the real createMachine with the mock and one real
// agent, configured from BENCH_AGENTS_CONFIG (JSON) the way the agents' tests configure them
// (isolated HOME, a fake model server). The ask probe lives HERE, not in production code: each
// provider is wrapped so that the moment its adapter hands an ask to the machine (`ctx.approve`)
// is printed as `ask <CLOCK_MONOTONIC ns>` on stdout; each sealed message handed to the relay
// link (the machine's `onSend`) as `out <type> <ns> <fingerprint>`, and each frame the link
// writes to its socket as `wire <ns> <fingerprint>` — the same clock the bench's phone reads
// (process.hrtime is CLOCK_MONOTONIC, system-wide on Linux). The fingerprint is the first 12 hex
// digits of the SHA-256 of the sealed frame, as the bench relay (relay/bench-stamps.ts) prints
// it: no plaintext leaves the process.

type Config = {
  relay: string;
  root: string;
  stateDir: string;
  agent: 'claude' | 'codex' | 'gemini';
  env: Record<string, string>;
  codexArgs?: string[];
};

const fp = (frame: string) => createHash('sha256').update(frame).digest('hex').slice(0, 12);

// The link's socket writes: patched on the prototype here, in the bench's entry only.
const wsSend = WebSocket.prototype.send;
WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
  if (typeof data === 'string')
    process.stdout.write(`wire ${process.hrtime.bigint()} ${fp(data)}\n`);
  return (wsSend as (...a: unknown[]) => void).call(this, data, ...rest);
} as typeof wsSend;

const cfg = JSON.parse(process.env.BENCH_AGENTS_CONFIG ?? '') as Config;

function probed(p: AgentProvider): AgentProvider {
  return {
    ...p,
    open(o) {
      const session = p.open(o);
      return {
        close: () => session.close(),
        runTurn(prompt, ctx) {
          const inner: AgentContext = {
            ...ctx,
            approve(ask, cleared) {
              process.stdout.write(`ask ${process.hrtime.bigint()}\n`);
              return ctx.approve(ask, cleared);
            },
          };
          return session.runTurn(prompt, inner);
        },
      };
    },
  };
}

const real =
  cfg.agent === 'claude'
    ? claudeProvider({ env: cfg.env, settingSources: [] })
    : cfg.agent === 'gemini'
      ? geminiProvider({ env: cfg.env })
      : codexProvider({ env: cfg.env, extraArgs: cfg.codexArgs ?? [] });
const check = await real.check();
if (!check.ok) throw new Error(check.message);

const machine = await createMachine({
  relay: cfg.relay,
  name: 'bench-machine',
  roots: [cfg.root],
  stateDir: cfg.stateDir,
  appUrl: 'http://127.0.0.1:4173',
  log: (level, code, message) => level !== 'info' && consoleLog(level, code, message),
  agents: [probed(real), probed(mockProvider)],
  // Every sealed message handed to the relay link: splits the leg into machine and the rest.
  onSend: (message, _push, frame) =>
    process.stdout.write(`out ${message.type} ${process.hrtime.bigint()} ${fp(frame)}\n`),
});
await machine.connected();
process.stdout.write(`ready ${machine.pairing.code}\n`);

process.once('SIGTERM', () => {
  // The machine's close ends every agent process tree (their own process groups).
  void machine.close().then(() => process.exit(0));
});
