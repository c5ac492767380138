import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { bundleForBrowser, ROOT } from './bundle';
import type { BrowserBundle } from './bundle';

/** What a web app imports: the client API and the Streamable HTTP client transport, nothing of servers. */
const CLIENT_SOURCE = `
export * from './lib/entries/client';
export * from './lib/entries/http-client';
`;

/** Packages that only serve Node (WebSocket, HTTP+SSE, token verification): none of them belongs in a page. */
const NODE_ONLY_PACKAGES = ['ws/', 'eventsource/', 'jose/'];

describe('the browser bundle of the client', () => {
  let bundle: BrowserBundle;
  beforeAll(async () => {
    bundle = await bundleForBrowser({ source: CLIENT_SOURCE });
  });

  it('bundles rxmcp/client and the Streamable HTTP client transport without a Node built-in', () => {
    expect(bundle.nodeImports).toEqual([]);
    expect(bundle.code).toContain('createStreamableHttpClientTransport');
  });

  it('leaves out pino (rxmcp makes its own loggers without it), ws, eventsource and jose', () => {
    const { packageFiles } = bundle;
    expect(packageFiles.filter((file) => file.startsWith('pino/'))).toEqual([]);
    expect(packageFiles.filter((file) => NODE_ONLY_PACKAGES.some((name) => file.startsWith(name)))).toEqual([]);
  });

  it('bundles the built CommonJS files, as a web app gets them from the package, without a Node built-in', async () => {
    const built = resolve(ROOT, 'dist/lib/entries/client.js');
    if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
    const fromDist = await bundleForBrowser({
      source: `
export * from './dist/lib/entries/client.js';
export { createStreamableHttpClientTransport } from './dist/lib/transport/http-client/streamable-http/streamable-http-client-transport.js';
`,
    });
    expect(fromDist.nodeImports).toEqual([]);
  });

  it('names each Node built-in a module imports (the check can fail)', async () => {
    const server = await bundleForBrowser({ source: "export * from './lib/entries/http';" });
    expect(server.nodeImports).toEqual(
      expect.arrayContaining([
        'lib/transport/http-server/streamable-http/streamable-http-server.ts -> node:http',
        'lib/transport/http-server/http-sse/http-sse-session.ts -> node:crypto',
      ]),
    );
  });
});
