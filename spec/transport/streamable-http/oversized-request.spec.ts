import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../../lib/client/client';
import { createServer } from '../../../lib/server/server';
import { createStreamableHttpClientTransport } from '../../../lib/transport/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../../lib/transport/streamable-http/streamable-http-server';

describe('a request body past the server’s limit (#13)', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)(
    'fails that call alone (%s); the client goes on',
    async (protocolVersion) => {
      const server = createServer({ name: 'small', version: '1' });
      server.tool({
        name: 'echo',
        description: 'echoes',
        inputSchema: z.object({ text: z.string() }),
        handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
      });
      const running = await startStreamableHttpServer({ server, maxBodyBytes: 4096 });
      const client = await connect(createStreamableHttpClientTransport({ url: running.url }), {
        name: 'c',
        version: '1',
        protocolVersion,
      });
      try {
        await expect(client.promises.callTool('echo', { text: 'x'.repeat(2_000_000) })).rejects.toThrow();
        expect(client.connection.state).toBe('operating');
        const small = await client.promises.callTool('echo', { text: 'still here' });
        expect(small.content).toEqual([{ type: 'text', text: 'still here' }]);
      } finally {
        const closed = firstValueFrom(client.connection.closed$);
        client.close();
        await closed;
        server.close();
        await running.close();
      }
    },
  );
});
