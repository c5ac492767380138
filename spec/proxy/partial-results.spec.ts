import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { concat, delay, lastValueFrom, map, of, toArray } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { ToolCallEvent } from '../../lib/client/tool-call';
import { partialResult, startTask } from '../../lib/connection/handler-events';
import { PARTIAL_RESULT_METHOD } from '../../lib/connection/partial-results';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { aggregate } from '../../lib/proxy/aggregate';
import { proxy } from '../../lib/proxy/proxy';
import { partialResults } from '../../lib/server/partial-results';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { Transport } from '../../lib/transport/transport';

// Partial tool results (SEP-2998, as drafted) through `proxy()` and `aggregate()`: a caller that
// asked for them gets the upstream tool's pieces under its own token, in order, before the result,
// whatever revision each side speaks; a caller that did not ask gets them as progress; the
// upstream hop's token never reaches the caller, nor the caller's the upstream.

const WORDS = ['one', 'two', 'three'];

function writer() {
  const server = createServer({ name: 'writer', version: '1.0.0', logging: false, extensions: [partialResults()] });
  server.tool({
    name: 'write',
    inputSchema: z.object({ words: z.array(z.string()) }),
    handler: ({ words }) =>
      concat(
        of(
          ...words.map((word, i) =>
            partialResult({ content: [{ type: 'text', text: word }], structuredContent: { i } }),
          ),
        ),
        of(textResult(words.join(' '))),
      ),
  });
  return server;
}

/** A client of `target` in memory, recording what it receives. */
async function clientOf(
  target: { connect(transport: Transport): unknown },
  options: { protocolVersion: '2025-11-25' | '2026-07-28'; partialResults: boolean },
): Promise<{ client: McpClient; received: JsonRpcMessage[] }> {
  const [clientSide, serverSide] = createInMemoryPair();
  target.connect(serverSide);
  const received: JsonRpcMessage[] = [];
  clientSide.incoming$.subscribe((frame) => received.push(frame as JsonRpcMessage));
  const client = await connect(clientSide, { name: 'caller', version: '1.0.0', ...options });
  return { client, received };
}

const partialsOf = (events: readonly ToolCallEvent[]) => events.filter((event) => event.type === 'partial');
const piecesIn = (received: readonly JsonRpcMessage[]) =>
  received.filter(
    (message): message is JsonRpcMessage & { params: Record<string, unknown> } =>
      'method' in message && message.method === PARTIAL_RESULT_METHOD,
  );

describe.each([
  ['2025-11-25', '2025-11-25'],
  ['2025-11-25', '2026-07-28'],
  ['2026-07-28', '2025-11-25'],
  ['2026-07-28', '2026-07-28'],
] as const)('partial results through proxy(): upstream %s, caller %s', (upstreamRevision, callerRevision) => {
  const clients: McpClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  async function through(callerAsks: boolean, upstreamDeclares = true) {
    const upstream = await clientOf(writer(), { protocolVersion: upstreamRevision, partialResults: upstreamDeclares });
    const front = proxy(upstream.client);
    const caller = await clientOf(front, { protocolVersion: callerRevision, partialResults: callerAsks });
    clients.push(upstream.client, caller.client);
    const events = await lastValueFrom(caller.client.callTool('write', { words: WORDS }).pipe(toArray()));
    return { events, upstream, caller, front };
  }

  it('passes the pieces on under the caller’s token, in order, before the whole result', async () => {
    const { events, upstream, caller } = await through(true);
    expect(partialsOf(events)).toEqual(
      WORDS.map((text, i) => ({
        type: 'partial',
        seq: i,
        content: [{ type: 'text', text }],
        structuredContent: { i },
      })),
    );
    expect(events.at(-1)).toEqual({ type: 'result', result: { content: [{ type: 'text', text: 'one two three' }] } });
    // Each hop has its own token: the caller's pieces carry its request's, the upstream's the proxy's.
    const callerTokens = new Set(piecesIn(caller.received).map((message) => message.params.partialResultToken));
    const upstreamTokens = new Set(piecesIn(upstream.received).map((message) => message.params.partialResultToken));
    expect(callerTokens.size).toBe(1);
    expect(upstreamTokens.size).toBe(1);
  });

  it('declares partial results downstream where the caller’s revision keeps extensions', async () => {
    const { caller } = await through(true);
    const capabilities = caller.client.serverCapabilities as Record<string, unknown>;
    const place = callerRevision === '2026-07-28' ? 'extensions' : 'experimental';
    expect(capabilities[place]).toEqual({ 'io.modelcontextprotocol/partial-results': {} });
    expect(capabilities[place === 'extensions' ? 'experimental' : 'extensions']).toBeUndefined();
  });

  it('gives a caller that did not ask the pieces as progress, and sends it no partial result', async () => {
    const { events, caller } = await through(false);
    expect(partialsOf(events)).toEqual([]);
    expect(piecesIn(caller.received)).toEqual([]);
    expect(events.filter((event) => event.type === 'progress')).toHaveLength(WORDS.length);
    expect(events.at(-1)?.type).toBe('result');
  });

  it('passes progress only when the upstream client did not declare partial results', async () => {
    const { events, caller } = await through(true, false);
    expect(partialsOf(events)).toEqual([]);
    expect(piecesIn(caller.received)).toEqual([]);
    expect(events.filter((event) => event.type === 'progress')).toHaveLength(WORDS.length);
  });
});

describe('partial results through aggregate()', () => {
  it('reach a caller of a namespaced tool in order', async () => {
    const upstream = await clientOf(writer(), { protocolVersion: '2025-11-25', partialResults: true });
    const front = aggregate({ docs: upstream.client });
    const caller = await clientOf(front, { protocolVersion: '2025-11-25', partialResults: true });
    const tools = await caller.client.promises.listTools();
    const name = tools.find((tool) => tool.name.endsWith('write'))!.name;
    const events = await lastValueFrom(caller.client.callTool(name, { words: WORDS }).pipe(toArray()));
    expect(partialsOf(events).map((event) => (event.type === 'partial' ? event.seq : -1))).toEqual([0, 1, 2]);
    expect(events.at(-1)?.type).toBe('result');
    caller.client.close();
    upstream.client.close();
  });
});

describe('the official SDK client through proxy()', () => {
  it('gets the final result and the pieces as progress, over Streamable HTTP', async () => {
    const upstream = await clientOf(writer(), { protocolVersion: '2025-11-25', partialResults: true });
    const front = proxy(upstream.client);
    const running = await startStreamableHttpServer({
      host: '127.0.0.1',
      port: 0,
      onSession: (t) => void front.connect(t),
    });
    const sdk = new Client({ name: 'sdk', version: '1.0.0' });
    try {
      await sdk.connect(new StreamableHTTPClientTransport(running.url));
      const progress: number[] = [];
      const result = await sdk.callTool({ name: 'write', arguments: { words: WORDS } }, undefined, {
        onprogress: (update) => progress.push(update.progress),
      });
      expect(result.content).toEqual([{ type: 'text', text: 'one two three' }]);
      expect(progress).toEqual([1, 2, 3]);
    } finally {
      await sdk.close();
      await running.close();
      upstream.client.close();
    }
  });
});

describe.each(['2025-11-25', '2026-07-28'] as const)(
  'partial results of an upstream 2026-07-28 task through proxy(): caller %s',
  (callerRevision) => {
    it('reach the caller in order, those sent with the request and those the task kept, before the result', async () => {
      const server = createServer({
        name: 'tasker',
        version: '1.0.0',
        logging: false,
        tasks: { pollIntervalMs: 5 },
        extensions: [partialResults()],
      });
      server.tool({
        name: 'write',
        execution: { taskSupport: 'optional' },
        taskStart: 'signalled',
        handler: () =>
          concat(
            of(partialResult({ content: [{ type: 'text', text: 'early' }] }), startTask()),
            of('late-1', 'late-2').pipe(
              delay(5),
              map((text) => partialResult({ content: [{ type: 'text', text }] })),
            ),
            of(textResult('done')).pipe(delay(5)),
          ),
      });
      const [upstreamSide, serverSide] = createInMemoryPair();
      server.connect(serverSide);
      const upstream = await connect(upstreamSide, {
        name: 'proxy',
        version: '1.0.0',
        protocolVersion: '2026-07-28',
        tasks: true,
        partialResults: true,
      });
      const caller = await clientOf(proxy(upstream), { protocolVersion: callerRevision, partialResults: true });
      try {
        const events = await lastValueFrom(caller.client.callTool('write', {}).pipe(toArray()));
        const texts = partialsOf(events).map((event) => (event.type === 'partial' ? event.content?.[0]?.text : ''));
        expect(texts).toEqual(['early', 'late-1', 'late-2']);
        expect(partialsOf(events).map((event) => (event.type === 'partial' ? event.seq : -1))).toEqual([0, 1, 2]);
        expect(events.at(-1)).toMatchObject({ type: 'result', result: { content: [{ type: 'text', text: 'done' }] } });
      } finally {
        caller.client.close();
        upstream.close();
      }
    });
  },
);
