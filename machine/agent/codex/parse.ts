import type { RequestId } from './generated/RequestId.ts';

// Parse at the edge: every line the app-server writes is checked here before anything acts on
// it. The wire is JSON-RPC 2.0 without the `jsonrpc` field, one message per line: a response
// (`id` + `result`|`error`), a request from the server (`id` + `method`), or a notification
// (`method` alone). Params are checked per method by the guards below, against the shapes of the
// generated protocol types.

export type Incoming =
  | { kind: 'response'; id: RequestId; result: unknown }
  | { kind: 'error-response'; id: RequestId; code: number; message: string }
  | { kind: 'request'; id: RequestId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown };

export type ParseResult = { ok: true; value: Incoming } | { ok: false; message: string };

export const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

const isId = (x: unknown): x is RequestId =>
  typeof x === 'string' || (typeof x === 'number' && Number.isInteger(x));

export function parseIncoming(line: string): ParseResult {
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    return { ok: false, message: `not JSON: ${line.slice(0, 120)}` };
  }
  if (!isObject(m)) return { ok: false, message: 'not a JSON object' };
  const hasId = 'id' in m && m.id !== null && m.id !== undefined;
  if (typeof m.method === 'string') {
    if (hasId && !isId(m.id)) return { ok: false, message: `bad request id in ${m.method}` };
    return {
      ok: true,
      value: hasId
        ? { kind: 'request', id: m.id as RequestId, method: m.method, params: m.params }
        : { kind: 'notification', method: m.method, params: m.params },
    };
  }
  if (!isId(m.id))
    return { ok: false, message: 'neither a request, a response nor a notification' };
  if ('error' in m) {
    const e = isObject(m.error) ? m.error : {};
    return {
      ok: true,
      value: {
        kind: 'error-response',
        id: m.id,
        code: typeof e.code === 'number' ? e.code : 0,
        message: typeof e.message === 'string' ? e.message : 'error without a message',
      },
    };
  }
  if (!('result' in m)) return { ok: false, message: `response ${m.id} has no result` };
  return { ok: true, value: { kind: 'response', id: m.id, result: m.result } };
}

/** Field checks for a params object: each names the fields the adapter reads and their types. */
type FieldType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'string?' | 'number?';

const matches = (v: unknown, t: FieldType): boolean => {
  switch (t) {
    case 'string?':
      return v === undefined || v === null || typeof v === 'string';
    case 'number?':
      return v === undefined || v === null || typeof v === 'number';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObject(v);
    default:
      return typeof v === t;
  }
};

/**
 * `x` as `T` when it is an object whose named fields have the named types; null otherwise.
 * The fields are the ones the adapter reads, so a shape it cannot use never gets past here.
 */
export function shaped<T>(x: unknown, fields: Record<string, FieldType>): T | null {
  if (!isObject(x)) return null;
  for (const [k, t] of Object.entries(fields)) if (!matches(x[k], t)) return null;
  return x as T;
}
