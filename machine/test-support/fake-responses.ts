import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A scripted OpenAI Responses API on loopback, the model a real `codex app-server` talks to in
// tests. Codex calls only `POST /v1/responses` and reads a server-sent event stream; each request
// is recorded (its JSON body) and answered by the reply the test's `respond` picks for it — text,
// a function call, an HTTP error status, or no answer at all.

export type FakeReply =
  | { kind: 'text'; text: string; usage?: { input: number; output: number } }
  | { kind: 'call'; name: string; args: Record<string, unknown>; callId?: string }
  /** A freeform tool call, as Codex's `apply_patch` takes: the patch text itself. */
  | { kind: 'custom'; name: string; input: string; callId?: string }
  | { kind: 'status'; status: number; message: string }
  /** Headers and `response.created`, then silence until the server closes. */
  | { kind: 'hang' };

export type FakeRequest = { body: ResponsesBody; raw: string };
/** The part of a Responses request the tests read: the conversation items Codex sends. */
export type ResponsesBody = { model?: string; input?: unknown[]; tools?: unknown[] };

export type FakeResponses = {
  /** The provider's base URL for Codex's config (`…/v1`). */
  readonly baseUrl: string;
  readonly requests: FakeRequest[];
  /** Picks the reply to each request; a test sets it before it starts a turn. */
  respond: (req: FakeRequest) => FakeReply;
  close(): Promise<void>;
};

const sse = (event: string, data: object) =>
  `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

let counter = 0;

function streamFor(reply: FakeReply & { kind: 'text' | 'call' | 'custom' }): string {
  const id = `resp_${++counter}`;
  const usage = reply.kind === 'text' ? reply.usage : undefined;
  const item =
    reply.kind === 'text'
      ? {
          type: 'message',
          role: 'assistant',
          id: `msg_${counter}`,
          content: [{ type: 'output_text', text: reply.text, annotations: [] }],
        }
      : reply.kind === 'call'
        ? {
            type: 'function_call',
            id: `fc_${counter}`,
            call_id: reply.callId ?? `call_${counter}`,
            name: reply.name,
            arguments: JSON.stringify(reply.args),
          }
        : {
            type: 'custom_tool_call',
            id: `ctc_${counter}`,
            call_id: reply.callId ?? `call_${counter}`,
            name: reply.name,
            input: reply.input,
          };
  const events = [
    sse('response.created', { response: { id } }),
    sse('response.output_item.added', { output_index: 0, item }),
    ...(reply.kind === 'text'
      ? [
          sse('response.output_text.delta', {
            output_index: 0,
            content_index: 0,
            item_id: item.id,
            delta: reply.text,
          }),
        ]
      : []),
    sse('response.output_item.done', { output_index: 0, item }),
    sse('response.completed', {
      response: {
        id,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: usage?.input ?? 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage?.output ?? 5,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: (usage?.input ?? 10) + (usage?.output ?? 5),
        },
      },
    }),
  ];
  return events.join('');
}

export async function startFakeResponses(): Promise<FakeResponses> {
  const open = new Set<http.ServerResponse>();
  const fake: FakeResponses = {
    baseUrl: '',
    requests: [],
    respond: () => ({ kind: 'status', status: 500, message: 'no reply scripted' }),
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/responses')) {
        res.writeHead(404).end();
        return;
      }
      let body: ResponsesBody;
      try {
        body = JSON.parse(raw) as ResponsesBody;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const request = { body, raw };
      fake.requests.push(request);
      const reply = fake.respond(request);
      if (reply.kind === 'status') {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: reply.message, type: 'fake_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (reply.kind === 'hang') {
        open.add(res);
        res.on('close', () => open.delete(res));
        res.write(sse('response.created', { response: { id: `resp_${++counter}` } }));
        return;
      }
      res.end(streamFor(reply));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  (fake as { baseUrl: string }).baseUrl = `http://127.0.0.1:${port}/v1`;
  return fake;
}

/** The text of every item of one kind in a request's input, e.g. the user's or tool outputs. */
export function inputTexts(req: FakeRequest): string[] {
  return (req.body.input ?? []).map((item) => JSON.stringify(item));
}
