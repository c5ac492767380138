/**
 * The proxy's cost: the same `tools/call` made directly and through `proxy()`, in memory (client,
 * proxy and server in one process) and stdio to HTTP (the client talks stdio to a proxy process,
 * which talks Streamable HTTP to the server). In the second case the server runs in a process of
 * its own, as deployed, whether it is called directly or through the proxy. Composition issue
 * target: at least 0.7 of direct throughput. From stdio to HTTP the same call also goes through a
 * bare relay (servers/relay-floor.ts), the floor of those rows: what a process that only passes
 * the lines on keeps of the direct call, the same hops with no work of its own.
 */
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import {
  connect,
  createInMemoryPair,
  createStdioClientTransport,
  createStreamableHttpClientTransport,
  proxy,
} from '../lib/index';
import type { McpClient, Transport } from '../lib/index';
import { startServerProcess } from './servers/process';
import { createBenchServer } from './servers/rxmcp-server';
import type { CallHarness } from './workload';

/** Where the proxy sits. */
export const PROXY_TRANSPORTS = ['in-memory', 'stdio-to-http'] as const;
export type ProxyTransport = (typeof PROXY_TRANSPORTS)[number];

/** How the call is made: directly, through `proxy()`, or through the bare relay (stdio to HTTP only). */
export type ProxySide = 'direct' | 'proxied' | 'relay';

/** The process between the benchmark and the server, for each side that has one. */
const FRONT_SCRIPTS: Record<Exclude<ProxySide, 'direct'>, string> = {
  proxied: 'servers/rxmcp-proxy.js',
  relay: 'servers/relay-floor.js',
};

const HANDSHAKE = { name: 'bench-client', version: '1.0.0', protocolVersion: '2025-11-25' } as const;

function harness(client: McpClient, stop: () => Promise<void>): CallHarness {
  return {
    call: () => client.promises.callTool('echo', { text: 'hello' }),
    callLarge: () => client.promises.callTool('large'),
    close: async () => {
      const closed = firstValueFrom(client.connection.closed$);
      client.close();
      await closed;
      await stop();
    },
  };
}

/** An in-memory client of `target`. */
async function inMemoryClient(target: { connect(transport: Transport): unknown }): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  target.connect(serverSide);
  return connect(clientSide, HANDSHAKE);
}

/** A client calling the bench server directly, or through a proxy (or the relay), over `kind`. */
export async function proxyHarness(kind: ProxyTransport, side: ProxySide): Promise<CallHarness> {
  if (kind === 'in-memory') {
    if (side === 'relay') throw new Error('the relay floor runs from stdio to HTTP only');
    const server = createBenchServer();
    if (side === 'direct') return harness(await inMemoryClient(server), async () => server.close());
    const upstream = await inMemoryClient(server);
    const front = proxy(upstream);
    return harness(await inMemoryClient(front), async () => {
      front.close();
      upstream.close();
      server.close();
    });
  }
  const server = await startServerProcess(join(__dirname, 'servers/rxmcp-server.js'), ['--http=stateful']);
  const transport =
    side === 'direct'
      ? createStreamableHttpClientTransport({ url: server.url })
      : createStdioClientTransport({
          command: process.execPath,
          args: [join(__dirname, FRONT_SCRIPTS[side]), server.url],
        });
  return harness(await connect(transport, HANDSHAKE), server.stop);
}
