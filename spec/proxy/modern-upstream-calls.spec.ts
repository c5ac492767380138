import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { proxy } from '../../lib/proxy/proxy';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';

// A `tools/call` that proxy() sends to a 2026-07-28 upstream goes as the client's own calls go:
// with the Mcp-Param headers its tool declares (an upstream refuses the call without them), and,
// when the upstream answers with a task of the tasks extension, followed to its result.

describe.each(['2025-11-25', '2026-07-28'] as const)(
  'tools/call to a 2026-07-28 upstream through proxy(): caller %s',
  (callerRevision) => {
    let running: RunningStreamableHttpServer;
    const clients: McpClient[] = [];
    /** The Mcp-Param-Region header of each tools/call the upstream saw. */
    const regions: Array<string | undefined> = [];

    beforeEach(async () => {
      regions.length = 0;
      const server = createServer({ name: 'regional', version: '1.0.0', logging: false, tasks: { pollIntervalMs: 5 } });
      server.tool({
        name: 'regional',
        inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
        handler: (args: Record<string, unknown>, context) => {
          const header = context.headers?.['mcp-param-region'];
          regions.push(typeof header === 'string' ? header : undefined);
          return textResult(`ran in ${String(args.region)}`);
        },
      });
      running = await startStreamableHttpServer({ server, host: '127.0.0.1', port: 0 });
    });

    afterEach(async () => {
      for (const client of clients.splice(0)) client.close();
      await running.close();
    });

    async function through(): Promise<McpClient> {
      const upstream = await connect(createStreamableHttpClientTransport({ url: running.url }), {
        name: 'gateway',
        version: '1.0.0',
        protocolVersion: '2026-07-28',
      });
      const [callerSide, frontSide] = createInMemoryPair();
      proxy(upstream).connect(frontSide);
      const caller = await connect(callerSide, { name: 'caller', version: '1.0.0', protocolVersion: callerRevision });
      clients.push(caller, upstream);
      return caller;
    }

    it('carries the Mcp-Param header of the tool’s annotated argument, even before the proxy listed the tools', async () => {
      const caller = await through();
      await expect(caller.promises.callTool('regional', { region: 'eu' })).resolves.toEqual({
        content: [{ type: 'text', text: 'ran in eu' }],
      });
      await expect(caller.promises.callTool('regional', { region: 'us' })).resolves.toEqual({
        content: [{ type: 'text', text: 'ran in us' }],
      });
      expect(regions).toEqual(['eu', 'us']);
    });
  },
);
