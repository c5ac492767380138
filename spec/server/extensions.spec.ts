import { firstValueFrom } from 'rxjs';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { clientExtension, clientSupportsExtension } from '../../lib/server/extensions';
import { serverExtension } from '../../lib/client/extensions';
import type { McpClient } from '../../lib/client/client';
import { connected } from '../support/connected';

const ID = 'com.example/echo';

/** A server with one extension: `echo/say` answers what the client declared for it. */
function echoServer(): McpServer {
  const server = createServer({ name: 'extensions-spec', version: '1.0.0', logging: false });
  server.extension({
    id: ID,
    settings: { loud: true },
    handlers: {
      'echo/say': (params, context) => ({
        said: params.text,
        declared: clientSupportsExtension(context, ID),
        settings: clientExtension(context, ID) ?? null,
        capabilities: context.clientCapabilities,
      }),
    },
  });
  return server;
}

describe('server extensions', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close('done'));

  it('declares the extension under capabilities.extensions to a modern client', async () => {
    client = await connected(echoServer());
    expect(client.era).toBe('modern');
    expect(client.serverCapabilities.extensions).toEqual({ [ID]: { loud: true } });
    expect(serverExtension(client, ID)).toEqual({ loud: true });
  });

  it('declares it under capabilities.experimental in a 2025-11-25 session, not under extensions', async () => {
    client = await connected(echoServer(), { protocolVersion: '2025-11-25' });
    expect(client.era).toBe('legacy');
    expect(client.serverCapabilities).not.toHaveProperty('extensions');
    expect(client.serverCapabilities.experimental).toEqual({ [ID]: { loud: true } });
    expect(serverExtension(client, ID)).toEqual({ loud: true });
  });

  it.each([
    ['modern', {}, 'extensions', 'experimental'],
    ['2025-11-25 session', { protocolVersion: '2025-11-25' as const }, 'experimental', 'extensions'],
  ])('answers the extension method and sees what the client declared (%s)', async (_era, options, where, not) => {
    client = await connected(echoServer(), { ...options, extensions: { [ID]: { quiet: 1 } } });
    const answer = await firstValueFrom(client.request('echo/say', { text: 'hi' }));
    expect(answer).toMatchObject({ said: 'hi', declared: true, settings: { quiet: 1 } });
    // The client put its declaration where the revision carries extensions, and only there.
    const capabilities = answer.capabilities as Record<string, Record<string, unknown> | undefined>;
    expect(capabilities[where]?.[ID]).toEqual({ quiet: 1 });
    expect(capabilities[not]?.[ID]).toBeUndefined();
  });

  it('tells a handler when the client did not declare the extension', async () => {
    client = await connected(echoServer());
    const answer = await firstValueFrom(client.request('echo/say', { text: 'hi' }));
    expect(answer).toMatchObject({ declared: false, settings: null });
  });

  it('still refuses a method the modern revision dropped, though the server has a handler for it', async () => {
    client = await connected(echoServer());
    await expect(firstValueFrom(client.request('resources/unsubscribe', { uri: 'x://y' }))).rejects.toMatchObject({
      code: -32601,
    });
  });

  it('answers -32601 for a method no extension adds', async () => {
    client = await connected(echoServer());
    const failure = firstValueFrom(client.request('echo/shout', {}));
    await expect(failure).rejects.toBeInstanceOf(JsonRpcError);
    await expect(failure).rejects.toMatchObject({ code: -32601 });
  });

  it('refuses a malformed identifier, a repeated one, and a method already answered', () => {
    const server = echoServer();
    expect(() => server.extension({ id: 'echo' })).toThrow(/prefixed name/);
    expect(() => server.extension({ id: ID })).toThrow(/already declared/);
    expect(() => server.extension({ id: 'com.example/other', handlers: { 'tools/list': () => ({}) } })).toThrow(
      /tools\/list .* already answered/,
    );
    expect(() => server.extension({ id: 'com.example/again', handlers: { 'echo/say': () => ({}) } })).toThrow(
      /already answered/,
    );
  });

  it('runs the extension middleware around core requests', async () => {
    const server = createServer({ name: 'extensions-spec', version: '1.0.0' });
    server.tool({ name: 'a', description: 'a', handler: () => ({ content: [] }) });
    const seen: string[] = [];
    server.extension({
      id: 'com.example/watch',
      middleware: (request, _context, next) => {
        seen.push(request.method);
        return next();
      },
    });
    client = await connected(server);
    await client.promises.listTools();
    expect(seen).toContain('tools/list');
  });
});
