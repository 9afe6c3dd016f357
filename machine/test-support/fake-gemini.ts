import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

// A scripted Gemini API server for tests that drive the real Gemini CLI offline
// (GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:<port>). The CLI streams with
// `POST /v1beta/models/<m>:streamGenerateContent?alt=sse` (one SSE `data:` line per answer here)
// and asks a routing classifier with `:generateContent` (answered with a fixed choice). A
// conversation is told apart by a marker the test puts in its prompt; each streamed request of
// that conversation takes the next reply of its script. Tool results come back as
// `functionResponse` parts of the last user content.

export type GeminiReply =
  | { text: string; usage?: { input: number; output: number } }
  | { call: string; args: Record<string, unknown> }
  /** An HTTP error status with the API's error body (500…). */
  | { status: number; message: string }
  /** Accepts the request and never answers (until the server closes). */
  | { hang: true };

type Content = { role?: string; parts?: Array<Record<string, unknown>> };
type Body = { contents?: Content[] };

export type FakeGemini = {
  readonly url: string;
  script(marker: string, replies: GeminiReply[]): void;
  /** The streamed requests a conversation made so far (parsed bodies). */
  requests(marker: string): Body[];
  close(): Promise<void>;
};

/**
 * The isolated environment of every run of the real Gemini CLI against this fake: its own HOME
 * with settings that keep it off the internet (no usage statistics, telemetry or update check),
 * this server as the API, a key that is never checked.
 */
export function geminiTestEnv(home: string, baseUrl: string): Record<string, string> {
  const dir = path.join(home, '.gemini');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify({
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1 },
      model: { name: 'gemini-2.5-flash' },
      security: { folderTrust: { enabled: false } },
    }),
  );
  return {
    HOME: home,
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    GEMINI_API_KEY: 'test-key',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
  };
}

function stream(
  res: ServerResponse,
  reply: Extract<GeminiReply, { text: string } | { call: string }>,
) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const usage = 'usage' in reply && reply.usage ? reply.usage : { input: 100, output: 20 };
  const part =
    'call' in reply
      ? { functionCall: { name: reply.call, args: reply.args } }
      : { text: reply.text };
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: usage.input,
      candidatesTokenCount: usage.output,
      totalTokenCount: usage.input + usage.output,
    },
    modelVersion: 'gemini-fake',
  };
  res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  res.end();
}

export async function startFakeGemini(): Promise<FakeGemini> {
  const scripts = new Map<string, { replies: GeminiReply[]; next: number; seen: Body[] }>();
  const hanging = new Set<ServerResponse>();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = req.url ?? '';
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || !url.startsWith('/v1beta/models/')) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
    if (!url.includes(':streamGenerateContent')) {
      // The routing classifier (and any other one-shot call): a fixed, well-formed choice.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          candidates: [
            {
              content: {
                role: 'model',
                parts: [{ text: '{"reasoning":"simple","model_choice":"flash"}' }],
              },
              finishReason: 'STOP',
            },
          ],
        }),
      );
      return;
    }
    const users = JSON.stringify((body.contents ?? []).filter((c) => c.role === 'user'));
    const entry = [...scripts.entries()]
      .filter(([marker]) => users.includes(marker))
      .sort(([a], [b]) => b.length - a.length)[0]?.[1];
    if (entry === undefined) {
      stream(res, { text: 'ok' });
      return;
    }
    entry.seen.push(body);
    const reply = entry.replies[Math.min(entry.next, entry.replies.length - 1)]!;
    entry.next += 1;
    if ('hang' in reply) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { code: reply.status, message: reply.message, status: 'INTERNAL' },
        }),
      );
      return;
    }
    stream(res, reply);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    script(marker, replies) {
      scripts.set(marker, { replies, next: 0, seen: [] });
    },
    requests: (marker) => scripts.get(marker)?.seen ?? [],
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
