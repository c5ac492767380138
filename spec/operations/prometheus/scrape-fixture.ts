import { connect } from '../../../lib/client/client';
import type { McpClient } from '../../../lib/client/client';
import { createServer } from '../../../lib/server/server';
import type { McpServer } from '../../../lib/server/server';
import { createStreamableHttpClientTransport } from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';

/** A server with operations on, that has answered calls of both revision families and every outcome. */
export interface ScrapedServer {
  readonly running: RunningStreamableHttpServer;
  close(): Promise<void>;
}

/** Starts a server with `operations: {}` on 127.0.0.1 and makes calls on it: two ok, one tool error, one unknown tool. */
export async function serverAfterCalls(): Promise<ScrapedServer> {
  const server: McpServer = createServer({ name: 'scraped', version: '1.0.0' });
  server.tool({ name: 'echo', description: 'echo', handler: () => ({ content: [{ type: 'text', text: 'hi' }] }) });
  server.tool({
    name: 'broken',
    description: 'fails',
    handler: () => ({ isError: true, content: [{ type: 'text', text: 'no' }] }),
  });
  const running = await startStreamableHttpServer({ server, operations: {} });
  const clients: McpClient[] = [];
  const info = { name: 'scraper-spec', version: '1.0.0' };
  for (const protocolVersion of ['2025-11-25', '2026-07-28'] as const) {
    const client = await connect(createStreamableHttpClientTransport({ url: running.url }), {
      ...info,
      protocolVersion,
    });
    clients.push(client);
    await client.promises.callTool(protocolVersion === '2025-11-25' ? 'echo' : 'broken');
  }
  await clients[0]!.promises.callTool('echo');
  await clients[0]!.promises.callTool('missing').catch(() => undefined);
  return {
    running,
    close: async () => {
      for (const client of clients) await client.close();
      server.close();
      await running.close();
    },
  };
}
