import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { concat, lastValueFrom, Observable, of, Subject, toArray } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { ToolCallEvent } from '../../lib/client/tool-call';
import { partialResult, progress } from '../../lib/connection/handler-events';
import { PARTIAL_RESULT_METHOD, readPartialResult } from '../../lib/connection/partial-results';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { partialResults } from '../../lib/server/partial-results';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';

// Partial tool results (SEP-2998, as drafted): a tool's Observable marks pieces of its output with
// partialResult(); a client that declared partial results gets them as `partial` events before
// the result, in seq order; any other client gets them as progress, and the handler is the same.
function writerServer(withExtension = true) {
  const server = createServer({
    name: 'writer',
    version: '1.0.0',
    logging: false,
    ...(withExtension ? { extensions: [partialResults()] } : {}),
  });
  server.tool({
    name: 'write',
    inputSchema: z.object({ words: z.array(z.string()) }),
    handler: ({ words }) =>
      concat(
        of(progress(0, words.length)),
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

/** Connects a client to `server` in memory, recording every message the client receives. */
async function pair(server: ReturnType<typeof writerServer>, options: Record<string, unknown>) {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  const received: JsonRpcMessage[] = [];
  clientSide.incoming$.subscribe((frame) => received.push(frame as JsonRpcMessage));
  const client = await connect(clientSide, { name: 'reader', version: '1.0.0', ...options });
  return { client, received };
}

const partialsOf = (events: readonly ToolCallEvent[]) => events.filter((event) => event.type === 'partial');

describe.each([
  ['2025-11-25 (the extension under experimental)', '2025-11-25'],
  ['2026-07-28 (the extension under extensions, per request)', '2026-07-28'],
])('partial tool results, %s', (_name, protocolVersion) => {
  it('come as partial events in order before the whole result, each a notification with the call token', async () => {
    const { client, received } = await pair(writerServer(), { protocolVersion, partialResults: true });
    const events = await lastValueFrom(client.callTool('write', { words: ['one', 'two', 'three'] }).pipe(toArray()));
    expect(partialsOf(events)).toEqual([
      { type: 'partial', seq: 0, content: [{ type: 'text', text: 'one' }], structuredContent: { i: 0 } },
      { type: 'partial', seq: 1, content: [{ type: 'text', text: 'two' }], structuredContent: { i: 1 } },
      { type: 'partial', seq: 2, content: [{ type: 'text', text: 'three' }], structuredContent: { i: 2 } },
    ]);
    expect(events.at(-1)).toEqual({ type: 'result', result: { content: [{ type: 'text', text: 'one two three' }] } });
    expect(events.filter((event) => event.type === 'progress')).toEqual([{ type: 'progress', progress: 0, total: 3 }]);
    const notifications = received.filter(
      (message): message is JsonRpcMessage & { method: string; params: Record<string, unknown> } =>
        'method' in message && message.method === PARTIAL_RESULT_METHOD,
    );
    expect(notifications.map((message) => message.params.seq)).toEqual([0, 1, 2]);
    const tokens = new Set(notifications.map((message) => message.params.partialResultToken));
    expect(tokens.size).toBe(1);
    client.close();
  });

  it('become progress messages for a client that did not declare them, with the same handler', async () => {
    const { client, received } = await pair(writerServer(), { protocolVersion });
    const events = await lastValueFrom(client.callTool('write', { words: ['a', 'b'] }).pipe(toArray()));
    expect(partialsOf(events)).toEqual([]);
    expect(events.filter((event) => event.type === 'progress')).toEqual([
      { type: 'progress', progress: 0, total: 2 },
      { type: 'progress', progress: 1, message: 'a' },
      { type: 'progress', progress: 2, message: 'b' },
    ]);
    expect(received.some((message) => 'method' in message && message.method === PARTIAL_RESULT_METHOD)).toBe(false);
    client.close();
  });

  it('become progress too when the server does not serve them, though the client declared them', async () => {
    const { client } = await pair(writerServer(false), { protocolVersion, partialResults: true });
    const events = await lastValueFrom(client.callTool('write', { words: ['x'] }).pipe(toArray()));
    expect(partialsOf(events)).toEqual([]);
    expect(events.filter((event) => event.type === 'progress')).toHaveLength(2);
    client.close();
  });

  it('reach a for-await loop through promises.streamTool', async () => {
    const { client } = await pair(writerServer(), { protocolVersion, partialResults: true });
    const seen: string[] = [];
    for await (const event of client.promises.streamTool('write', { words: ['p', 'q'] })) {
      seen.push(event.type === 'partial' ? `partial ${event.seq}` : event.type);
    }
    expect(seen).toEqual(['progress', 'partial 0', 'partial 1', 'result']);
    const result = await client.promises.callTool('write', { words: ['r'] });
    expect(result.content).toEqual([{ type: 'text', text: 'r' }]);
    client.close();
  });

  it('cancel the call when the for-await loop is left before the result', async () => {
    const server = createServer({ name: 's', version: '1', logging: false, extensions: [partialResults()] });
    const stopped = new Promise<void>((resolve) =>
      server.tool({
        name: 'endless',
        handler: () =>
          new Observable((subscriber) => {
            subscriber.next(partialResult('first'));
            return () => resolve();
          }),
      }),
    );
    const { client } = await pair(server as ReturnType<typeof writerServer>, { protocolVersion, partialResults: true });
    for await (const event of client.promises.streamTool('endless', {})) {
      expect(event).toMatchObject({ type: 'partial', seq: 0, content: [{ type: 'text', text: 'first' }] });
      break;
    }
    await stopped;
    client.close();
  });
});

describe('a partial result as it arrives', () => {
  it('is checked: a malformed one is dropped, a well-formed one read', () => {
    expect(readPartialResult({ partialResultToken: 1, seq: 0, content: [{ type: 'text', text: 'x' }] })).toEqual({
      token: 1,
      params: { seq: 0, content: [{ type: 'text', text: 'x' }] },
    });
    expect(readPartialResult({ partialResultToken: 1.5, seq: 0 })).toBeUndefined();
    expect(readPartialResult({ partialResultToken: 't', seq: -1 })).toBeUndefined();
    expect(readPartialResult({ partialResultToken: 't', seq: 0, content: 'text' })).toBeUndefined();
    expect(readPartialResult({ partialResultToken: 't', seq: 0, structuredContent: [] })).toBeUndefined();
    expect(readPartialResult({ partialResultToken: 't', seq: 0, final: 'yes' })).toBeUndefined();
  });

  it('is delivered in seq order: a repeated or earlier seq is dropped, a gap tolerated', async () => {
    const server = createServer({ name: 's', version: '1', logging: false, extensions: [partialResults()] });
    const release = new Subject<never>();
    let token: unknown;
    server.tool({
      name: 'slow',
      handler: (_args, context) => {
        token = context.meta?.partialResultToken;
        return concat(release, of(textResult('done')));
      },
    });
    const [clientSide, serverSide] = createInMemoryPair();
    server.connect(serverSide);
    const client = await connect(clientSide, {
      name: 'c',
      version: '1',
      protocolVersion: '2025-11-25',
      partialResults: true,
    });
    const events: ToolCallEvent[] = [];
    const done = new Promise<void>((resolve) =>
      client.callTool('slow', {}).subscribe({ next: (event) => events.push(event), complete: resolve }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    // The server's side of the transport sends what another peer might, with the call's token.
    expect(token).toBeDefined();
    const send = (seq: number) =>
      serverSide.send({ jsonrpc: '2.0', method: PARTIAL_RESULT_METHOD, params: { partialResultToken: token, seq } });
    for (const seq of [0, 2, 2, 1, 3]) send(seq);
    release.complete();
    await done;
    expect(partialsOf(events).map((event) => (event as { seq: number }).seq)).toEqual([0, 2, 3]);
    client.close();
  });
});

describe('partial tool results over Streamable HTTP', () => {
  it('reach an rxmcp client on the call’s stream, and an official SDK client as progress with the whole result', async () => {
    const server = writerServer();
    const running = await startStreamableHttpServer({ server });
    try {
      const client = await connect(createStreamableHttpClientTransport({ url: running.url }), {
        name: 'reader',
        version: '1.0.0',
        partialResults: true,
      });
      const events = await lastValueFrom(client.callTool('write', { words: ['s', 't'] }).pipe(toArray()));
      expect(partialsOf(events).map((event) => (event as { seq: number }).seq)).toEqual([0, 1]);
      client.close();

      const sdk = new Client({ name: 'sdk', version: '1.0.0' });
      await sdk.connect(new StreamableHTTPClientTransport(running.url));
      const progress: Array<{ progress: number; message?: string }> = [];
      const result = await sdk.callTool({ name: 'write', arguments: { words: ['u', 'v'] } }, undefined, {
        onprogress: ({ progress: value, message }) =>
          progress.push({ progress: value, ...(message ? { message } : {}) }),
      });
      expect(result.content).toEqual([{ type: 'text', text: 'u v' }]);
      expect(progress).toEqual([{ progress: 0 }, { progress: 1, message: 'u' }, { progress: 2, message: 'v' }]);
      await sdk.close();
    } finally {
      await running.close();
    }
  });
});
