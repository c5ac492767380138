import { concat, lastValueFrom, Observable, of, toArray } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { checkToolOutput, toolResult } from '../../lib/client/tool-call';
import { progress } from '../../lib/connection/handler-events';
import { ProtocolError } from '../../lib/jsonrpc/errors';
import type { Tool } from '../../lib/schema/tools';
import { fakeServer, flush } from './fake-server';

const info = { name: 'tool-call-spec', version: '1.0.0' };
// These specs cover the handshake era: the revision is pinned, so connect sends initialize first.
const legacy = { ...info, protocolVersion: '2025-11-25' } as const;
const weather: Tool = {
  name: 'weather',
  inputSchema: { type: 'object' },
  outputSchema: {
    type: 'object',
    properties: { temperature: { type: 'number' }, conditions: { type: 'string' } },
    required: ['temperature'],
  },
};

describe('callTool', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('[tools.progress] emits progress events, then the result, then completes', async () => {
    const metas: unknown[] = [];
    const server = fakeServer({
      capabilities: { tools: {} },
      handlers: {
        'tools/call': (params) => {
          metas.push(params._meta);
          return concat(of(progress(1, 3, 'one'), progress(2, 3)), of({ content: [{ type: 'text', text: 'done' }] }));
        },
      },
    });
    client = await connect(server.clientTransport, legacy);
    const events = await lastValueFrom(client.callTool('count', { n: 3 }).pipe(toArray()));
    expect(events).toEqual([
      { type: 'progress', progress: 1, total: 3, message: 'one' },
      { type: 'progress', progress: 2, total: 3 },
      { type: 'result', result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
    expect(metas).toEqual([{ progressToken: expect.any(Number) }]);
  });

  it('[tools.progress-off] asks for no progress with progress: false, and toolResult() keeps the result only', async () => {
    const metas: unknown[] = [];
    const server = fakeServer({
      capabilities: { tools: {} },
      handlers: { 'tools/call': (params) => (metas.push(params._meta), { content: [] }) },
    });
    client = await connect(server.clientTransport, legacy);
    const results = await lastValueFrom(client.callTool('t', {}, { progress: false }).pipe(toolResult(), toArray()));
    expect(results).toEqual([{ content: [] }]);
    expect(metas).toEqual([undefined]);
  });

  it('[cancellation.client] unsubscribing early sends notifications/cancelled and stops the tool', async () => {
    let torn = false;
    const server = fakeServer({
      capabilities: { tools: {} },
      handlers: { 'tools/call': () => new Observable<Record<string, unknown>>(() => () => void (torn = true)) },
    });
    const cancels: unknown[] = [];
    server.connection.notifications$.subscribe((n) => n.method === 'notifications/cancelled' && cancels.push(n.params));
    client = await connect(server.clientTransport, legacy);
    const subscription = client.callTool('slow').subscribe();
    await flush();
    subscription.unsubscribe();
    await flush();
    expect(cancels).toEqual([{ requestId: expect.any(Number), reason: 'The caller cancelled the request' }]);
    expect(torn).toBe(true);
  });

  describe('[tools.output-schema] structuredContent', () => {
    function serverWith(result: Record<string, unknown>, tools: Tool[] = [weather]) {
      return fakeServer({
        capabilities: { tools: {} },
        handlers: { 'tools/list': () => ({ tools }), 'tools/call': () => result },
      });
    }

    it('fetches the tool list once when needed and passes conforming output', async () => {
      const server = serverWith({ content: [], structuredContent: { temperature: 20, conditions: 'sunny' } });
      client = await connect(server.clientTransport, legacy);
      await expect(client.promises.callTool('weather')).resolves.toMatchObject({
        structuredContent: { temperature: 20 },
      });
      await expect(client.promises.callTool('weather')).resolves.toBeDefined();
      expect(server.received).toEqual(['tools/call', 'tools/list', 'tools/call']);
    });

    it('fails the call with a ProtocolError that names the mismatch', async () => {
      const server = serverWith({ content: [], structuredContent: { temperature: 'warm' } });
      client = await connect(server.clientTransport, legacy);
      const call = client.promises.callTool('weather');
      await expect(call).rejects.toBeInstanceOf(ProtocolError);
      await expect(call).rejects.toThrow(
        'Tool "weather" returned structuredContent that does not match its outputSchema: temperature: expected number, received string',
      );
      expect(client.state).toBe('operating');
    });

    it('fails a result without structuredContent when the listed tool has an outputSchema', async () => {
      const server = serverWith({ content: [] });
      client = await connect(server.clientTransport, legacy);
      await client.promises.listTools();
      await expect(client.promises.callTool('weather')).rejects.toThrow(
        /has an outputSchema but returned no structuredContent/,
      );
    });

    it('skips the check for error results, with validateOutput: false, and for tools without a schema', async () => {
      const server = serverWith({ content: [], structuredContent: { temperature: 'warm' } }, [
        weather,
        { name: 'free', inputSchema: { type: 'object' } },
      ]);
      client = await connect(server.clientTransport, legacy);
      await expect(client.promises.callTool('weather', {}, { validateOutput: false })).resolves.toBeDefined();
      await expect(client.promises.callTool('free')).resolves.toBeDefined();
      expect(checkToolOutput(weather, { content: [], isError: true })).toEqual({ content: [], isError: true });
    });

    it('forgets the known tools on tools/list_changed and lists again', async () => {
      const server = serverWith({ content: [], structuredContent: { temperature: 1 } });
      client = await connect(server.clientTransport, legacy);
      await client.promises.callTool('weather');
      server.connection.notify('notifications/tools/list_changed');
      await flush();
      await client.promises.callTool('weather');
      expect(server.received.filter((m) => m === 'tools/list')).toHaveLength(2);
    });
  });
});
