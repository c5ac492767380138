/**
 * The page's script: connects to an MCP server on another origin with the Streamable HTTP client,
 * calls its `countdown` tool and shows the progress as it comes. A bundler (esbuild, Vite, webpack)
 * turns it into one browser script; `rxmcp/client` and `rxmcp/http-client` use no Node built-in.
 * index.html says how to run it.
 */
import { lastValueFrom, tap } from 'rxjs';
import { connect, toolResult } from 'rxmcp/client';
import { createStreamableHttpClientTransport } from 'rxmcp/http-client';

// The few DOM names used here, declared by hand because this repository compiles without the DOM
// library; in a web app's own project (with "lib": ["ES2022", "DOM"]) leave these two lines out.
declare const document: { getElementById(id: string): { textContent: string | null } | null; title: string };
declare const location: { search: string };

const output = document.getElementById('output');
const show = (line: string) => {
  if (output) output.textContent += `${line}\n`;
};

async function run(): Promise<void> {
  // The server's URL comes from the page's address: index.html?server=http://127.0.0.1:3000/mcp
  const url = new URLSearchParams(location.search).get('server') ?? 'http://127.0.0.1:3000/mcp';
  const client = await connect(createStreamableHttpClientTransport({ url }), {
    name: 'browser-page',
    version: '1.0.0',
  });
  show(`connected to ${client.serverInfo.name} (${client.revision})`);
  // Progress events, then the result; closing the tab would cancel the call.
  const result = await lastValueFrom(
    client.callTool('countdown').pipe(
      tap((event) => event.type === 'progress' && show(`${event.progress}/${event.total}: ${event.message}`)),
      toolResult(),
    ),
  );
  show(result.content.map((part) => (part.type === 'text' ? part.text : part.type)).join(' '));
  client.close();
}

// The title tells a watcher (a person, or the test in headless Chromium) how it ended.
run().then(
  () => (document.title = 'done'),
  (error: unknown) => {
    show(`failed: ${String(error)}`);
    document.title = 'failed';
  },
);
