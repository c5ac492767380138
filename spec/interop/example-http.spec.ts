import type { ChildProcess } from 'node:child_process';
import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createHttpSseClientTransport } from '../../lib/transport/http-client/http-sse/http-sse-client-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import type { Transport } from '../../lib/transport/transport';
import { startExample } from '../support/example-server';

describe('example server over HTTP (--http)', () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    ({ child, url } = await startExample());
  });

  afterAll(async () => {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  });

  async function withClient(
    transport: Transport,
    run: (client: McpClient) => Promise<void>,
    protocolVersion?: '2025-11-25',
  ) {
    const client = await connect(transport, {
      name: 'http-spec',
      version: '1.0.0',
      ...(protocolVersion ? { protocolVersion } : {}),
    });
    try {
      await run(client);
    } finally {
      const closed = firstValueFrom(client.connection.closed$);
      client.close();
      await closed;
    }
  }

  it('prints a loopback /mcp URL and serves Streamable HTTP', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    await withClient(createStreamableHttpClientTransport({ url }), async (client) => {
      expect(client.revision).toBe('2026-07-28');
      expect((await client.promises.callTool('add', { a: 1, b: 2 })).content).toEqual([{ type: 'text', text: '3' }]);
    });
  });

  it('[sse-polling] resumes a call whose stream the server closed, with the answer replayed (2025-11-25)', async () => {
    await withClient(
      createStreamableHttpClientTransport({ url }),
      async (client) => {
        expect(client.revision).toBe('2025-11-25');
        const result = await client.promises.callTool('test_reconnection', {});
        expect(result.content).toEqual([{ type: 'text', text: 'Reconnection test completed' }]);
      },
      '2025-11-25',
    );
  });

  it('serves 2024-11-05 HTTP+SSE clients at /sse', async () => {
    const sseUrl = url.replace(/\/mcp$/, '/sse');
    await withClient(createHttpSseClientTransport({ url: sseUrl }), async (client) => {
      expect((await client.promises.callTool('add', { a: 20, b: 22 })).content).toEqual([{ type: 'text', text: '42' }]);
    });
  });
});
