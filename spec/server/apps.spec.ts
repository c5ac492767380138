import { firstValueFrom } from 'rxjs';
import { createServer } from '../../lib/server/server';
import { clientSupportsApps, serveApps, UI_EXTENSION, UI_MIME_TYPE } from '../../lib/server/apps';
import type { McpClient } from '../../lib/client/client';
import { connected } from '../support/connected';

const VIEW = 'ui://clock/view.html';
const HTML = '<!doctype html><title>clock</title>';
const UI = { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } };

/** A server with a view, a tool that shows it, a tool only the view calls, and a plain tool. */
function appsServer() {
  const server = createServer({ name: 'apps-spec', version: '1.0.0', logging: false });
  const apps = serveApps(server);
  apps.resource({
    uri: VIEW,
    name: 'clock-view',
    description: 'The clock',
    html: HTML,
    ui: { csp: { connectDomains: ['https://time.example'] }, prefersBorder: true },
  });
  apps.tool(
    {
      name: 'clock',
      description: 'Shows the time',
      _meta: { 'com.example/trace': 1 },
      handler: (_args, context) => ({
        content: [{ type: 'text', text: `12:00 (apps: ${clientSupportsApps(context)})` }],
      }),
    },
    { resourceUri: VIEW },
  );
  apps.tool(
    { name: 'clock-tick', description: 'Advances the clock', handler: () => ({ content: [] }) },
    { resourceUri: VIEW, visibility: ['app'] },
  );
  server.tool({ name: 'plain', description: 'No view', handler: () => ({ content: [] }) });
  return server;
}

describe('serveApps (MCP Apps)', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close('done'));

  it.each([
    ['modern', {}],
    ['2025-11-25 session', { protocolVersion: '2025-11-25' as const }],
  ])(
    'gives a client that declared the extension the links, the view and its sandbox needs (%s)',
    async (_era, options) => {
      client = await connected(appsServer(), { ...options, extensions: UI });
      const tools = await client.promises.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['clock', 'clock-tick', 'plain']);
      expect(tools[0]!._meta).toEqual({ 'com.example/trace': 1, ui: { resourceUri: VIEW } });
      expect(tools[1]!._meta).toEqual({ ui: { resourceUri: VIEW, visibility: ['app'] } });
      const [listed] = await client.promises.listResources();
      expect(listed).toMatchObject({ uri: VIEW, mimeType: UI_MIME_TYPE, _meta: { ui: { prefersBorder: true } } });
      const read = await client.promises.readResource(VIEW);
      expect(read.contents).toEqual([
        {
          uri: VIEW,
          mimeType: UI_MIME_TYPE,
          text: HTML,
          _meta: { ui: { csp: { connectDomains: ['https://time.example'] }, prefersBorder: true } },
        },
      ]);
      const result = await client.promises.callTool('clock', {});
      expect(result.content).toEqual([{ type: 'text', text: '12:00 (apps: true)' }]);
    },
  );

  it.each([
    ['modern', {}],
    ['2025-11-25 session', { protocolVersion: '2025-11-25' as const }],
  ])('sends nothing of the extension to a client that did not declare it (%s)', async (_era, options) => {
    client = await connected(appsServer(), options);
    const tools = await client.promises.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['clock', 'plain']);
    expect(tools[0]!._meta).toEqual({ 'com.example/trace': 1 });
    expect(tools[1]).not.toHaveProperty('_meta');
    const [listed] = await client.promises.listResources();
    expect(listed).not.toHaveProperty('_meta');
    const read = await client.promises.readResource(VIEW);
    expect(read.contents[0]).not.toHaveProperty('_meta');
    const result = await client.promises.callTool('clock', {});
    expect(result.content).toEqual([{ type: 'text', text: '12:00 (apps: false)' }]);
  });

  it('treats a host that renders other mime types only as one without MCP Apps', async () => {
    client = await connected(appsServer(), { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/plain'] } } });
    expect((await client.promises.listTools()).map((tool) => tool.name)).toEqual(['clock', 'plain']);
  });

  it('keeps the listings it varies by client out of shared caches', async () => {
    client = await connected(appsServer(), { extensions: UI });
    expect(await firstValueFrom(client.request('tools/list', {}))).toMatchObject({ cacheScope: 'private' });
    client.close('done');
    client = await connected(appsServer());
    expect(await firstValueFrom(client.request('resources/list', {}))).toMatchObject({ cacheScope: 'private' });
  });

  it('declares the extension in the server capabilities', async () => {
    client = await connected(appsServer());
    expect(client.serverCapabilities.extensions).toEqual({ [UI_EXTENSION]: {} });
  });

  it('refuses a view with both or neither of html and read, and a tool linked to no ui:// URI', () => {
    const apps = serveApps(createServer({ name: 'apps-spec', version: '1.0.0' }));
    expect(() => apps.resource({ uri: 'ui://a', name: 'a' })).toThrow(/exactly one of html and read/);
    expect(() => apps.resource({ uri: 'ui://b', name: 'b', html: 'x', read: () => 'y' })).toThrow(/exactly one/);
    expect(() =>
      apps.tool({ name: 't', description: 't', handler: () => ({ content: [] }) }, { resourceUri: 'https://x' }),
    ).toThrow(/ui:\/\//);
  });

  it('reads a view’s HTML from its read handler when asked', async () => {
    const server = createServer({ name: 'apps-spec', version: '1.0.0', logging: false });
    let reads = 0;
    serveApps(server).resource({ uri: 'ui://live', name: 'live', read: () => `<p>${++reads}</p>` });
    client = await connected(server, { extensions: UI });
    expect((await client.promises.readResource('ui://live')).contents[0]).toMatchObject({ text: '<p>1</p>' });
    expect((await client.promises.readResource('ui://live')).contents[0]).toMatchObject({ text: '<p>2</p>' });
  });
});
