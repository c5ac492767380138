import { concat, filter, finalize, firstValueFrom, NEVER, of, ReplaySubject, Subject, take, toArray } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { progress } from '../../lib/connection/handler-events';
import { ConnectionClosedError, JsonRpcError } from '../../lib/jsonrpc/errors';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { SessionNotFoundError } from '../../lib/transport/http-client/http-errors';
import {
  createStreamableHttpClientTransport,
  REQUEST_OUTCOME_UNKNOWN,
} from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import type {
  Reconnection,
  StreamableHttpClientTransport,
  StreamableHttpClientTransportOptions,
} from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { createHttpClientTransport } from '../../lib/transport/http-client/http-client-transport';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';

const URI = 'test://note';

/** One server process: its requests, as they complete, and how often each tool ran. */
interface Process {
  readonly running: RunningStreamableHttpServer;
  readonly server: McpServer;
  /** Each request the server answered: method and params. */
  readonly served$: ReplaySubject<{ method: string; params: unknown }>;
  readonly runs: Record<string, number>;
}

/** A server over Streamable HTTP on 127.0.0.1 (`port` 0: any free one), with memory of its own only. */
async function serve(port: number): Promise<Process> {
  const served$ = new ReplaySubject<{ method: string; params: unknown }>();
  const runs: Record<string, number> = { ping: 0, slow: 0 };
  const server = createServer({
    name: 'restartable',
    version: '1',
    middleware: [
      (request, _context, next) =>
        next().pipe(finalize(() => served$.next({ method: request.method, params: request.params }))),
    ],
  });
  server.tool({
    name: 'ping',
    description: 'answers',
    handler: (_args, context) => {
      runs.ping = (runs.ping ?? 0) + 1;
      context.log('info', 'ping at info');
      context.log('warning', 'ping at warning');
      return { content: [{ type: 'text', text: 'pong' }] };
    },
  });
  server.tool({
    name: 'slow',
    description: 'reports progress, then never answers',
    handler: () => {
      runs.slow = (runs.slow ?? 0) + 1;
      return concat(of(progress(1, 2)), NEVER);
    },
  });
  server.resource({ uri: URI, name: 'note', read: (uri) => ({ contents: [{ uri, text: `read ${runs.ping}` }] }) });
  const running = await startStreamableHttpServer({
    host: '127.0.0.1',
    port,
    // Streams resume soon after they break: the test waits for no second.
    retryMs: 5,
    onSession: (transport) => void server.connect(transport),
  });
  return { running, server, served$, runs };
}

function served(process: Process, method: string): Promise<{ method: string; params: unknown }> {
  return firstValueFrom(process.served$.pipe(filter((request) => request.method === method)));
}

describe('a client whose Streamable HTTP server restarted', () => {
  let current: Process | undefined;
  let client: McpClient | undefined;
  afterEach(async () => {
    client?.close();
    client = undefined;
    await current?.running.close();
    current = undefined;
  });

  async function start(
    options: Partial<StreamableHttpClientTransportOptions> = {},
  ): Promise<StreamableHttpClientTransport> {
    current = await serve(0);
    const transport = createStreamableHttpClientTransport({
      url: current.running.url,
      reconnect: { initialDelayMs: 5, maxRetries: 100 },
      logger: process.env.DEBUG_RENEW ? console : undefined,
      ...options,
    });
    client = await connect(transport, { name: 'reinitialize-spec', version: '1', protocolVersion: '2025-11-25' });
    return transport;
  }

  /** Closes the server and starts a new one on the same port: no sessions. */
  async function restart(): Promise<Process> {
    const { port } = (current as Process).running;
    await (current as Process).running.close();
    // A restart takes a while: by then the client has seen its idle connections close (a POST on
    // one it had not seen close would be cut, and not sent again).
    await new Promise((resolve) => setTimeout(resolve, 20));
    current = await serve(port);
    return current;
  }

  it('[client.reinitialize] opens a new session on 404, sends the refused call again (run once), and restores the log level', async () => {
    const transport = await start({ openStandaloneStream: false });
    const reconnections: Reconnection[] = [];
    client!.reconnected$.subscribe((reconnection) => reconnections.push(reconnection));
    await client!.promises.setLoggingLevel('warning');
    const before = transport.sessionId;
    expect(before).toEqual(expect.any(String));

    const restarted = await restart();
    const logged = firstValueFrom(client!.logMessages$.pipe(take(1), toArray()));
    const result = await client!.promises.callTool('ping');

    expect(result.content).toEqual([{ type: 'text', text: 'pong' }]);
    expect(restarted.runs.ping).toBe(1);
    expect(transport.sessionId).toEqual(expect.any(String));
    expect(transport.sessionId).not.toBe(before);
    expect(reconnections).toEqual([{ previousSessionId: before, sessionId: transport.sessionId }]);
    expect((await served(restarted, 'logging/setLevel')).params).toEqual({ level: 'warning' });
    // The level was restored before the call went again: the new session sent its warning only.
    expect(await logged).toEqual([expect.objectContaining({ level: 'warning', data: 'ping at warning' })]);
  });

  it('[client.reinitialize] subscribes again to watched resources on the new session; updates reach the client', async () => {
    await start();
    const reads: string[] = [];
    const watching = new Subject<void>();
    client!.watchResource(URI).subscribe((result) => {
      reads.push((result.contents[0] as { text: string }).text);
      watching.next();
    });
    await firstValueFrom(watching);
    const reconnected = firstValueFrom(client!.reconnected$);
    const reread = firstValueFrom(watching);

    // The standalone stream breaks, its resumption gets 404: a new session, with no call made.
    const restarted = await restart();
    await reconnected;
    await reread;

    expect((await served(restarted, 'resources/subscribe')).params).toEqual({ uri: URI });
    const updated = firstValueFrom(watching);
    restarted.server.resourceUpdated(URI);
    await updated;
    // Read after subscribing again (the resource may have changed meanwhile), then on the update.
    expect(reads).toEqual(['read 0', 'read 0', 'read 0']);
  });

  it('[client.reinitialize] with reinitialize: false, fails the call with SessionNotFoundError', async () => {
    await start({ reinitialize: false });
    await client!.promises.callTool('ping');
    const restarted = await restart();

    const failure = await client!.promises.callTool('ping').then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(ConnectionClosedError);
    expect((failure as Error).cause).toBeInstanceOf(SessionNotFoundError);
    expect(restarted.runs.ping).toBe(0);
  });

  it('[client.reinitialize] fails a call in flight on the lost session as one that may have run, and runs it at most once', async () => {
    await start();
    const first = current as Process;
    const progressed = new Subject<void>();
    const failed = new Promise<unknown>((resolve) =>
      client!.callTool('slow').subscribe({
        next: (event) => {
          if (event.type === 'progress') progressed.next();
        },
        error: resolve,
        complete: () => resolve(undefined),
      }),
    );
    // The handler runs, and its response stream has begun.
    await firstValueFrom(progressed);

    const restarted = await restart();
    const failure = await failed;

    expect(failure).toBeInstanceOf(JsonRpcError);
    expect(failure).toMatchObject({ code: REQUEST_OUTCOME_UNKNOWN, data: { outcomeUnknown: true } });
    expect((failure as Error).message).toMatch(
      /^The server restarted while this request was in flight; it may or may not have run/,
    );
    expect(first.runs.slow).toBe(1);
    expect(restarted.runs.slow).toBe(0);
    // The client goes on, on the new session.
    expect((await client!.promises.callTool('ping')).content).toEqual([{ type: 'text', text: 'pong' }]);
  });
});

describe('a client over createHttpClientTransport whose server restarted', () => {
  it('is told of the new session through the wrapper too, and restores its log level there', async () => {
    let current = await serve(0);
    const transport = createHttpClientTransport({
      url: current.running.url,
      reconnect: { initialDelayMs: 5, maxRetries: 100 },
    });
    const client = await connect(transport, { name: 'wrapped', version: '1', protocolVersion: '2025-11-25' });
    try {
      const reconnections: Reconnection[] = [];
      client.reconnected$.subscribe((reconnection) => reconnections.push(reconnection));
      await client.promises.setLoggingLevel('warning');
      const { port } = current.running;
      await current.running.close();
      await new Promise((resolve) => setTimeout(resolve, 20));
      current = await serve(port);
      const restored = served(current, 'logging/setLevel');
      await client.promises.callTool('ping');
      expect(await restored).toMatchObject({ params: { level: 'warning' } });
      expect(reconnections).toHaveLength(1);
    } finally {
      client.close();
      await current.running.close();
    }
  });
});
