import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AcpAgentSpec } from '../agent/acp/declare.ts';

// A tiny ACP agent for the machine's own fallbacks (E10 resume, E11.6): a real process speaking
// ACP through @agentclientprotocol/sdk's agent side, written to a file and run by this Node. It
// is a stand-in for no real agent's behaviour beyond the protocol: it offers `loadSession` or
// not, loads only sessions it created itself (a stored id it never made fails, as when an agent
// lost its history), and answers every prompt with `heard: <prompt>`. Each request is logged as
// one JSON line, so a test sees what the machine sent and from which process.

export type FakeAcpEvent =
  | { m: 'new'; sessionId: string; pid: number }
  | { m: 'load'; sessionId: string; pid: number; ok: boolean }
  | { m: 'prompt'; sessionId: string; text: string; pid: number };

const SCRIPT = (sdk: string) => `
import * as acp from ${JSON.stringify(sdk)};
import { appendFileSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
const logFile = process.env.FAKE_ACP_LOG;
const log = (e) => appendFileSync(logFile, JSON.stringify({ ...e, pid: process.pid }) + '\\n');
const made = () =>
  readFileSync(logFile, 'utf8').split('\\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.m === 'new').map((e) => e.sessionId);
const loadSession = process.env.FAKE_ACP_LOAD === 'yes';
acp.agent({ name: 'fake-acp' })
  .onRequest('initialize', () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession },
  }))
  .onRequest('session/new', () => {
    const sessionId = randomUUID();
    log({ m: 'new', sessionId });
    return { sessionId };
  })
  .onRequest('session/load', (c) => {
    const ok = made().includes(c.params.sessionId);
    log({ m: 'load', sessionId: c.params.sessionId, ok });
    if (!ok) throw new acp.RequestError(-32002, 'no such session: ' + c.params.sessionId);
    return {};
  })
  .onRequest('session/prompt', async (c) => {
    const text = c.params.prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
    log({ m: 'prompt', sessionId: c.params.sessionId, text });
    await c.client.notify('session/update', {
      sessionId: c.params.sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'heard: ' + text } },
    });
    return { stopReason: 'end_turn' };
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
`;

export type FakeAcpAgent = {
  /** The declaration that runs it (as `--acp-agent` or agents.json would). */
  spec: AcpAgentSpec;
  /** Every request it got so far, in order, from every process that ran it. */
  events(): FakeAcpEvent[];
};

/** Writes the agent into `dir`; `loadSession` says whether it offers `session/load`. */
export function writeFakeAcpAgent(
  dir: string,
  o: { name: string; loadSession: boolean },
): FakeAcpAgent {
  const sdk = pathToFileURL(
    createRequire(import.meta.url).resolve('@agentclientprotocol/sdk'),
  ).href;
  const script = path.join(dir, `${o.name}.mjs`);
  const logFile = path.join(dir, `${o.name}.log`);
  writeFileSync(script, SCRIPT(sdk));
  writeFileSync(logFile, '');
  return {
    spec: {
      name: o.name,
      command: process.execPath,
      args: [script],
      env: { FAKE_ACP_LOG: logFile, FAKE_ACP_LOAD: o.loadSession ? 'yes' : 'no' },
    },
    events: () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as FakeAcpEvent),
  };
}
