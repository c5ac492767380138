import type * as Inspect from '@statelyai/inspect' with { 'resolution-mode': 'import' };
import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { LifecycleInspectionEvent } from '../../lib/connection/connection-api';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';

// `@statelyai/inspect` is an ES module: loaded as `jose` is (see lib/auth/jose.ts).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createInspector } = require('@statelyai/inspect') as typeof Inspect;

/** A handshake revision: the lifecycles then go through initialize (`initializing` → `operating`). */
const HANDSHAKE = '2025-11-25';

function echoServer(options: Partial<Parameters<typeof createServer>[0]> = {}): McpServer {
  const server = createServer({ name: 'inspected-server', version: '1.0.0', ...options });
  server.tool({
    name: 'echo',
    description: 'Echoes text',
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
  });
  return server;
}

/** The top-level state of a snapshot's value (`{ initializing: 'idle' }` → `initializing`). */
function topState(value: unknown): string {
  return typeof value === 'string' ? value : Object.keys(value as object)[0]!;
}

/** The top-level states in order, each once however many steps it took. */
function stateSequence(values: readonly unknown[]): string[] {
  const states: string[] = [];
  for (const value of values) if (states.at(-1) !== topState(value)) states.push(topState(value));
  return states;
}

/**
 * `@statelyai/inspect` hands each event to its adapter in an idle callback (a zero-delay timer in
 * Node): a timer set after them runs after them all. No time passes; the queue is drained.
 */
function drainIdleCallbacks(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function callEcho(client: McpClient, text: string): Promise<unknown> {
  const result = await client.promises.callTool('echo', { text });
  return result.content;
}

describe('inspecting lifecycles with @statelyai/inspect', () => {
  let client: McpClient | undefined;
  let server: McpServer | undefined;
  afterEach(() => {
    client?.close();
    server?.close();
    client = server = undefined;
  });

  it("sends both lifecycle machines' registration and snapshots to an inspector's adapter", async () => {
    const sent: Inspect.StatelyInspectionEvent[] = [];
    // A local adapter: it records what a browser or WebSocket adapter would send, and sends nothing.
    const inspector = createInspector({ send: (event) => void sent.push(event) });
    server = echoServer({ inspect: inspector.inspect });
    const [clientSide, serverSide] = createInMemoryPair();
    const session = server.connect(serverSide);
    client = await connect(clientSide, {
      name: 'inspected-client',
      version: '1.0.0',
      protocolVersion: HANDSHAKE,
      inspect: inspector.inspect,
    });
    expect(await callEcho(client, 'hi')).toEqual([{ type: 'text', text: 'hi' }]);
    client.close('done');
    await firstValueFrom(session.connection.closed$);
    await drainIdleCallbacks();

    const actors = sent.filter((event): event is Inspect.StatelyActorEvent => event.type === '@xstate.actor');
    expect(actors.map((actor) => actor.name).sort()).toEqual(['clientLifecycle', 'serverLifecycle']);
    for (const actor of actors) {
      // The machine's definition goes with its registration: the inspector draws the statechart from it.
      const definition = JSON.parse(actor.definition!) as { id: string; states: Record<string, unknown> };
      expect(definition.id).toBe(actor.name);
      expect(Object.keys(definition.states)).toEqual(expect.arrayContaining(['initializing', 'operating', 'shutdown']));
      const snapshots = sent.filter(
        (event): event is Inspect.StatelySnapshotEvent =>
          event.type === '@xstate.snapshot' && event.sessionId === actor.sessionId,
      );
      const values = snapshots.map((event) => (event.snapshot as { value?: unknown }).value);
      expect(stateSequence(values)).toEqual(['initializing', 'operating', 'shutdown']);
      expect(snapshots.at(-1)!.snapshot).toMatchObject({ status: 'done', value: 'shutdown' });
      expect(snapshots.every((event) => event.rootId === actor.sessionId)).toBe(true);
    }
    const received = sent
      .filter((event): event is Inspect.StatelyEventEvent => event.type === '@xstate.event')
      .map((event) => (event.event as { type: string }).type);
    expect(received).toEqual(expect.arrayContaining(['local.initialize', 'peer.initialize', 'peer.initialized']));
  });

  it('sends the sessions of server.connect(transport, { inspect }) to that inspector, not the server one', async () => {
    const serverWide: Inspect.StatelyInspectionEvent[] = [];
    const ownSession: Inspect.StatelyInspectionEvent[] = [];
    server = echoServer({ inspect: createInspector({ send: (event) => void serverWide.push(event) }).inspect });
    const [clientSide, serverSide] = createInMemoryPair();
    server.connect(serverSide, { inspect: createInspector({ send: (event) => void ownSession.push(event) }).inspect });
    client = await connect(clientSide, { name: 'c', version: '1.0.0', protocolVersion: HANDSHAKE });
    await drainIdleCallbacks();
    expect(serverWide).toEqual([]);
    const registered = ownSession.filter((event) => event.type === '@xstate.actor');
    expect(registered.map((event) => (event as Inspect.StatelyActorEvent).name)).toEqual(['serverLifecycle']);
  });

  it('calls a plain function with the XState inspection events of both lifecycles, as they happen', async () => {
    const events: LifecycleInspectionEvent[] = [];
    const inspect = (event: LifecycleInspectionEvent) => void events.push(event);
    server = echoServer({ inspect });
    const [clientSide, serverSide] = createInMemoryPair();
    const session = server.connect(serverSide);
    client = await connect(clientSide, { name: 'c', version: '1.0.0', protocolVersion: HANDSHAKE, inspect });
    await callEcho(client, 'hi');
    client.close('done');
    await firstValueFrom(session.connection.closed$);

    const byActor = new Map<string, unknown[]>();
    for (const event of events) {
      const { id, sessionId } = event.actorRef as { id: string; sessionId: string };
      expect(event.rootId).toBe(sessionId);
      if (event.type === '@xstate.snapshot')
        byActor.set(id, [...(byActor.get(id) ?? []), (event.snapshot as { value: unknown }).value]);
    }
    expect([...byActor.keys()].sort()).toEqual(['clientLifecycle', 'serverLifecycle']);
    for (const values of byActor.values())
      expect(stateSequence(values)).toEqual(['initializing', 'operating', 'shutdown']);
    expect(events.filter((event) => event.type === '@xstate.actor')).toHaveLength(2);
  });

  it('does no inspection work without inspect: the option is read once per connection, never per message', async () => {
    const reads = { client: 0, session: 0 };
    server = echoServer();
    const [clientSide, serverSide] = createInMemoryPair();
    const session = server.connect(serverSide, {
      get inspect() {
        reads.session++;
        return undefined;
      },
    });
    client = await connect(clientSide, {
      name: 'c',
      version: '1.0.0',
      protocolVersion: HANDSHAKE,
      get inspect() {
        reads.client++;
        return undefined;
      },
    });
    expect(reads).toEqual({ client: 1, session: 1 });
    for (let i = 0; i < 5; i++) await callEcho(client, `call ${i}`);
    client.close('done');
    await firstValueFrom(session.connection.closed$);
    expect([client.state, session.connection.state]).toEqual(['shutdown', 'shutdown']);
    expect(reads).toEqual({ client: 1, session: 1 });
  });
});

describe('inspecting the sessions of a Streamable HTTP server', () => {
  it("gives the endpoint's inspect to the lifecycle of each session it connects to the server", async () => {
    const events: LifecycleInspectionEvent[] = [];
    const server = echoServer();
    const running = await startStreamableHttpServer({
      server,
      host: '127.0.0.1',
      port: 0,
      inspect: (event) => void events.push(event),
    });
    try {
      const client = await connect(createStreamableHttpClientTransport({ url: running.url }), {
        name: 'c',
        version: '1.0.0',
        protocolVersion: HANDSHAKE,
      });
      await callEcho(client, 'over http');
      const [session] = server.sessions;
      client.close('done');
      await firstValueFrom(session!.connection.closed$);
    } finally {
      server.close();
      await running.close();
    }
    const actors = events.filter((event) => event.type === '@xstate.actor');
    expect(actors.map((event) => (event.actorRef as { id: string }).id)).toEqual(['serverLifecycle']);
    const values = events
      .filter((event) => event.type === '@xstate.snapshot')
      .map((event) => (event.snapshot as { value: unknown }).value);
    expect(stateSequence(values)).toEqual(['initializing', 'operating', 'shutdown']);
  });
});
