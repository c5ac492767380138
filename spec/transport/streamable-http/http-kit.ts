import { request as httpRequest } from 'node:http';
import { createConnection } from '../../../lib/connection/create-connection';
import type { Connection } from '../../../lib/connection/connection';
import type { RequestContext } from '../../../lib/connection/dispatcher';
import { createSseParser } from '../../../lib/transport/framing/sse';
import type { SseEvent } from '../../../lib/transport/framing/sse';
import type { StreamableHttpServerTransport } from '../../../lib/transport/http-server/streamable-http/streamable-http-session';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type {
  RunningStreamableHttpServer,
  StreamableHttpServerOptions,
} from '../../../lib/transport/http-server/streamable-http/streamable-http-server';

/** Test helpers for the HTTP transports: a server with a few test tools, raw requests, SSE reading. */

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export const initializeBody = (id: number | string = 1, protocolVersion = '2025-11-25'): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
});

const delay = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * The test tools: `echo` answers at once; `chatty` logs and reports progress, then answers;
 * `slow` waits `ms` (or until cancelled); `gate` waits until `release(name)` is called;
 * `cut` logs, closes its request stream, then answers after its gate opens; `cut-first` closes its
 * request stream before sending anything, then does the same; `ask` sends
 * `sampling/createMessage` to the client and returns its answer.
 */
export function testToolHandler(
  gates: Map<string, () => void>,
  transports: () => StreamableHttpServerTransport | undefined,
) {
  return async (params: Record<string, unknown>, context: RequestContext): Promise<Record<string, unknown>> => {
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
    switch (params.name) {
      case 'echo':
        return text(String(args.text ?? ''));
      case 'chatty':
        context.log('info', 'started');
        context.progress(1, 2);
        context.log('info', 'working');
        context.progress(2, 2);
        return text('chatty done');
      case 'slow':
        await delay(Number(args.ms ?? 100), context.signal);
        return text('slow done');
      case 'gate':
        await new Promise<void>((resolve) => gates.set(String(args.gate), resolve));
        return text(`gate ${String(args.gate)} passed`);
      case 'cut': {
        // Closes its own stream's connection, then answers after the gate opens.
        context.log('info', 'before cut');
        transports()?.closeRequestStream(context.requestId);
        await new Promise<void>((resolve) => gates.set(String(args.gate ?? 'cut'), resolve));
        context.log('info', 'after cut');
        return text('cut done');
      }
      case 'cut-first': {
        transports()?.closeRequestStream(context.requestId);
        await new Promise<void>((resolve) => gates.set(String(args.gate ?? 'cut'), resolve));
        return text('cut-first done');
      }
      case 'ask': {
        const answer = await new Promise<Record<string, unknown>>((resolve, reject) =>
          context
            .request('sampling/createMessage', {
              messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
              maxTokens: 10,
            })
            .subscribe({ next: resolve, error: reject }),
        );
        return text(`answer: ${JSON.stringify(answer.content)}`);
      }
      default:
        return { content: [{ type: 'text', text: 'unknown tool' }], isError: true };
    }
  };
}

/** A running server whose sessions are connections with the test tools. */
export interface TestHttpServer {
  readonly running: RunningStreamableHttpServer;
  readonly url: string;
  readonly connections: Connection[];
  /** Opens the gate a `gate` or `cut` tool call waits on. */
  release(gate: string): void;
  close(): Promise<void>;
}

export async function startTestServer(options: Partial<StreamableHttpServerOptions> = {}): Promise<TestHttpServer> {
  const connections: Connection[] = [];
  const gates = new Map<string, () => void>();
  const bySession = new Map<Connection, StreamableHttpServerTransport>();
  let current: StreamableHttpServerTransport | undefined;
  const running = await startStreamableHttpServer({
    ...options,
    onSession: (transport) => {
      current = transport;
      const connection = createConnection({
        transport,
        role: 'server',
        info: { name: 'http-test', version: '1.0.0' },
        capabilities: () => ({ tools: {}, logging: {} }),
        handlers: {
          'tools/list': () => ({ tools: [] }),
          'tools/call': testToolHandler(gates, () => bySession.get(connection) ?? current),
        },
      });
      bySession.set(connection, transport);
      connections.push(connection);
      options.onSession?.(transport);
    },
  });
  return {
    running,
    url: running.url.href,
    connections,
    release: (gate) => {
      const open = gates.get(gate);
      if (!open) throw new Error(`no call waits on gate ${gate}`);
      gates.delete(gate);
      open();
    },
    close: () => running.close(),
  };
}

/** POSTs a JSON-RPC body with the headers a conforming client sends (overridable). */
export function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** Initializes a session over raw HTTP; resolves with its id. */
export async function openSession(url: string, protocolVersion = '2025-11-25'): Promise<string> {
  const response = await post(url, initializeBody(1, protocolVersion));
  const sessionId = response.headers.get('mcp-session-id');
  await readSse(response);
  if (!sessionId) throw new Error('no session id');
  const initialized = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': sessionId },
  );
  if (initialized.status !== 202) throw new Error(`initialized answered ${initialized.status}`);
  return sessionId;
}

/** Reads an SSE response body to its end (or until `until` returns true), returning every event. */
export async function readSse(response: Response, until?: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      if (until?.(events)) break;
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return events;
}

/**
 * The JSON-RPC messages of a POST's answer, whichever form it took: the body of an
 * `application/json` answer (a batch spread out), or the events of an SSE one.
 */
export async function answerMessages(response: Response): Promise<Array<Record<string, unknown>>> {
  if ((response.headers.get('content-type') ?? '').includes('application/json')) {
    const body = (await response.json()) as Record<string, unknown> | Array<Record<string, unknown>>;
    return Array.isArray(body) ? body : [body];
  }
  return messagesOf(await readSse(response));
}

/** The JSON-RPC messages carried by SSE events (priming events skipped). */
export const messagesOf = (events: readonly SseEvent[]): Array<Record<string, unknown>> =>
  events.filter((event) => event.data !== '').map((event) => JSON.parse(event.data) as Record<string, unknown>);

export const toolCall = (
  id: number | string,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

/**
 * POSTs with `node:http`, which, unlike fetch, lets a test set the Host header. Resolves with the
 * status and the body text.
 */
export function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          // An SSE answer stays open; the status is all a caller needs, so stop at the first event.
          if (text.includes('\n\n')) res.destroy();
        });
        res.on('close', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}
