import path from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A scripted Anthropic Messages server for tests that drive the real Claude Code binary offline
// (ANTHROPIC_BASE_URL=http://127.0.0.1:<port>). Each conversation is told apart by a marker the
// test puts in its first prompt; every model request of that conversation takes the next reply of
// its script, in order. A request with no known marker (an auxiliary call the CLI makes) gets a
// plain "ok". One server serves every case of a test file.

export type FakeReply =
  | { text: string; usage?: { input: number; output: number } }
  | { tool: string; input: Record<string, unknown>; text?: string }
  /** An HTTP error status with the API's error body (401, 429, 500…). */
  | { status: number; message: string }
  /** Accepts the request and never answers (until the server closes). */
  | { hang: true };

export type FakeAnthropic = {
  readonly url: string;
  /** Scripts the conversation whose first prompt contains `marker`. */
  script(marker: string, replies: FakeReply[]): void;
  /** The requests a conversation made so far (parsed bodies). */
  requests(marker: string): Array<{ messages: Array<{ role: string; content: unknown }> }>;
  close(): Promise<void>;
};

type Body = {
  messages?: Array<{ role: string; content: unknown }>;
  model?: string;
  tools?: unknown[];
};

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : ''))
          .join('\n')
      : '';

function sse(res: ServerResponse, model: string, reply: Extract<FakeReply, { text?: string }>) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: object) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  const usage = 'usage' in reply && reply.usage ? reply.usage : { input: 120, output: 30 };
  send('message_start', {
    message: {
      id: `msg_${Math.random().toString(36).slice(2)}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  });
  let index = 0;
  if (reply.text !== undefined) {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index, delta: { type: 'text_delta', text: reply.text } });
    send('content_block_stop', { index });
    index += 1;
  }
  const tool = 'tool' in reply ? reply : null;
  if (tool !== null) {
    send('content_block_start', {
      index,
      content_block: {
        type: 'tool_use',
        id: `toolu_${Math.random().toString(36).slice(2)}`,
        name: tool.tool,
        input: {},
      },
    });
    send('content_block_delta', {
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(tool.input) },
    });
    send('content_block_stop', { index });
  }
  send('message_delta', {
    delta: { stop_reason: tool !== null ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  send('message_stop', {});
  res.end();
}

/**
 * The isolated environment of every run of the real Claude CLI against this fake (never a
 * developer's own login): its own HOME and config folder, this server as the API, nothing else
 * reached, no retries.
 */
export function claudeTestEnv(home: string, baseUrl: string): Record<string, string> {
  return {
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'test-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
}

export type FakeAnthropicOptions = {
  /**
   * Requests that offer no tools get "ok" and take no reply of a script: the interactive CLI
   * asks for a session title with the first prompt in it, which would else take the first reply.
   */
  toollessIsAuxiliary?: boolean;
};

export async function startFakeAnthropic(o: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const scripts = new Map<string, { replies: FakeReply[]; next: number; seen: Body[] }>();
  const hanging = new Set<ServerResponse>();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
    const first = textOf(body.messages?.find((m) => m.role === 'user')?.content);
    // The longest marker that matches, so one marker may start another.
    const entry = [...scripts.entries()]
      .filter(([marker]) => first.includes(marker))
      .sort(([a], [b]) => b.length - a.length)[0]?.[1];
    const model = body.model ?? 'claude-fake';
    if (entry === undefined || (o.toollessIsAuxiliary === true && !(body.tools?.length ?? 0))) {
      sse(res, model, { text: 'ok' });
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
          type: 'error',
          error: {
            type: reply.status === 401 ? 'authentication_error' : 'api_error',
            message: reply.message,
          },
        }),
      );
      return;
    }
    sse(res, model, reply);
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
    requests: (marker) =>
      (scripts.get(marker)?.seen ?? []) as ReturnType<FakeAnthropic['requests']>,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
