/**
 * An MCP Apps example (`io.modelcontextprotocol/ui`): a dice tool whose results a host that renders
 * MCP Apps shows in a small HTML view, and a tool only that view calls (to roll again). A host
 * without MCP Apps sees a plain `roll_dice` tool whose result is text, and no `_meta.ui` anywhere.
 *
 *   node dist/examples/apps-server.js              # stdio (a client starts it; it ends with its stdin)
 *   node dist/examples/apps-server.js --http 3001  # Streamable HTTP at http://127.0.0.1:3001/mcp
 */
import pino from 'pino';
import { z } from 'zod';
import { createServer, createStdioServerTransport, serveApps, startStreamableHttpServer } from '../lib/index';
import type { McpServer, ToolResult } from '../lib/index';

const logger = pino({ level: process.env.LOG_LEVEL ?? 'error' }, pino.destination(2));

export const DICE_VIEW = 'ui://dice/view.html';

/**
 * The view: it renders the tool result the host hands it and asks the host to call `reroll_dice`.
 * The data arrives in tool results, never pasted into this HTML (the page can call tools).
 */
const VIEW_HTML = `<!doctype html>
<html>
  <head><meta charset="utf-8"><title>Dice</title></head>
  <body>
    <output id="roll">…</output>
    <button id="again">Roll again</button>
    <script type="module">
      // The host speaks JSON-RPC with the view over postMessage (MCP Apps).
      let next = 1;
      const show = (result) => {
        document.getElementById('roll').textContent = result?.structuredContent?.values?.join(' ') ?? '';
      };
      window.addEventListener('message', (event) => {
        const message = event.data;
        if (message?.method === 'ui/notifications/tool-result') show(message.params);
        else if (message?.result?.structuredContent) show(message.result);
      });
      document.getElementById('again').addEventListener('click', () => {
        window.parent.postMessage(
          { jsonrpc: '2.0', id: next++, method: 'tools/call', params: { name: 'reroll_dice', arguments: {} } },
          '*',
        );
      });
    </script>
  </body>
</html>
`;

function roll(count: number, sides: number): ToolResult {
  const values = Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides));
  return {
    content: [{ type: 'text', text: `Rolled ${count}d${sides}: ${values.join(', ')}` }],
    structuredContent: { values },
  };
}

/** The example server definition. */
export function createAppsServer(): McpServer {
  const server = createServer({ name: 'rxmcp-apps-example', version: '0.1.0', logger });
  const apps = serveApps(server);
  apps.resource({
    uri: DICE_VIEW,
    name: 'dice-view',
    description: 'Shows dice rolls',
    html: VIEW_HTML,
    ui: { prefersBorder: true },
  });
  apps.tool(
    {
      name: 'roll_dice',
      description: 'Rolls dice and shows them',
      inputSchema: z.object({
        count: z.number().int().min(1).max(10).default(2),
        sides: z.number().int().min(2).default(6),
      }),
      handler: ({ count, sides }) => roll(count, sides),
    },
    { resourceUri: DICE_VIEW },
  );
  apps.tool(
    { name: 'reroll_dice', description: 'Rolls two dice again (called by the view)', handler: () => roll(2, 6) },
    { resourceUri: DICE_VIEW, visibility: ['app'] },
  );
  return server;
}

if (require.main === module) {
  const at = process.argv.indexOf('--http');
  if (at < 0) {
    // stdio: the client that started this process speaks MCP on its stdin and stdout, and the server
    // stops when stdin ends. Started with no stdin (`< /dev/null`, in the background of a script, by
    // a runner that gives none) it ends at once: say so on stderr, which a client shows or ignores,
    // rather than exit silently (stdout is for protocol messages only).
    const session = createAppsServer().connect(createStdioServerTransport({ logger }));
    process.stderr.write('rxmcp apps example: serving MCP on stdin/stdout (--http <port> for HTTP)\n');
    session.closed$.subscribe(({ reason }) => process.stderr.write(`rxmcp apps example: stopped (${reason})\n`));
  } else {
    const server = createAppsServer();
    void startStreamableHttpServer({
      host: '127.0.0.1',
      port: Number(process.argv[at + 1] ?? process.env.PORT ?? 3001),
      logger,
      onSession: (transport) => void server.connect(transport),
      modernReceiver: server.modern,
    }).then((running) => process.stdout.write(`rxmcp apps example: Streamable HTTP at ${running.url}\n`));
  }
}
