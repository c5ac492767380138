/** The official SDK's server with the same two tools as the rxmcp one. Served over stdio when run. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { LARGE_TEXT } from '../workload';

export function createOfficialBenchServer(): McpServer {
  const server = new McpServer({ name: 'bench-official', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('large', { description: 'Returns 1 MB of text.' }, async () => ({
    content: [{ type: 'text', text: LARGE_TEXT }],
  }));
  return server;
}

if (require.main === module) {
  const transport = new StdioServerTransport();
  transport.onclose = () => process.exit(0);
  void createOfficialBenchServer().connect(transport);
  process.stdin.on('end', () => process.exit(0));
}
