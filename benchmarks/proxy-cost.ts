/**
 * The proxy's cost: the same `tools/call` made directly and through `proxy()`, in memory (client,
 * proxy and server in one process) and stdio to HTTP (the client talks stdio to a proxy process,
 * which talks Streamable HTTP to the server). In the second case the server runs in a process of
 * its own, as deployed, whether it is called directly or through the proxy. Composition issue
 * target: at least 0.7 of direct throughput. From stdio to HTTP the same call also goes through a
 * bare relay (servers/relay-floor.ts), the floor of those rows: what a process that only passes
 * the lines on keeps of the direct call, the same hops with no work of its own. On both, the
 * `policed` side is the proxy as a gateway runs it in production: a rate limit, a concurrency cap
 * and a tool policy per caller (a verified principal), and the call metrics of `/metrics`
 * counting every request (issue #39 target: at most 10% of the proxy's throughput). In memory it
 * is the worst case, where nothing but the proxy's own work is timed; from stdio to HTTP, it is
 * what a gateway process between two real transports pays.
 */
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import {
  concurrencyLimit,
  connect,
  createInMemoryPair,
  createStdioClientTransport,
  createStreamableHttpClientTransport,
  proxy,
  rateLimit,
  toolPolicy,
} from '../lib/index';
import { ServerOperations } from '../lib/operations/server-operations';
import type { AuthInfo, McpClient, ServerMiddleware, Transport } from '../lib/index';
import { startServerProcess } from './servers/process';
import { createBenchServer } from './servers/rxmcp-server';
import type { CallHarness } from './workload';

/** Where the proxy sits. */
export const PROXY_TRANSPORTS = ['in-memory', 'stdio-to-http'] as const;
export type ProxyTransport = (typeof PROXY_TRANSPORTS)[number];

/**
 * How the call is made: directly, through `proxy()`, through `proxy()` with the gateway's policies
 * and metrics, or through the bare relay (stdio to HTTP only).
 */
export type ProxySide = 'direct' | 'proxied' | 'policed' | 'relay';

/** The process between the benchmark and the server, for each side that has one, and its arguments. */
const FRONT_SCRIPTS: Record<Exclude<ProxySide, 'direct'>, readonly [script: string, ...args: string[]]> = {
  proxied: ['servers/rxmcp-proxy.js'],
  policed: ['servers/rxmcp-proxy.js', '--policed'],
  relay: ['servers/relay-floor.js'],
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

/** An in-memory client of `target`; `sides` may wrap the pair's two sides first. */
async function inMemoryClient(
  target: { connect(transport: Transport): unknown },
  sides: (client: Transport, server: Transport) => [Transport, Transport] = (client, server) => [client, server],
): Promise<McpClient> {
  const [clientSide, serverSide] = sides(...createInMemoryPair());
  target.connect(serverSide);
  return connect(clientSide, HANDSHAKE);
}

/** The caller a gateway's endpoint would have verified: limits count against its principal. */
export const CALLER: AuthInfo = {
  subject: 'bench-user',
  scopes: ['read'],
  claims: { iss: 'https://issuer.bench', sub: 'bench-user' },
};

/**
 * The policies of a production gateway, none of which refuses the benchmark's calls: a rate limit
 * per caller on `tools/call` (in memory), a cap on calls in flight, and a tool policy with a rule
 * (on another tool) that every call is checked against.
 */
export function gatewayPolicies(): ServerMiddleware[] {
  return [
    toolPolicy({ tools: { deploy: { scopes: ['deploy'] } } }),
    rateLimit({ name: 'calls', limit: 1e12, windowMs: 60_000, when: (request) => request.method === 'tools/call' }),
    concurrencyLimit({ limit: 4096 }),
  ];
}

/**
 * The two sides of an in-memory pair as an authenticating HTTP endpoint presents them: the server
 * side with the verified caller, and its requests followed by `operations` as the HTTP server
 * follows them (each request counted, by method and outcome, with its duration). The HTTP server
 * tells the tracker of a request when its POST arrives, before the session's transport carries it:
 * here, when the client's side sends it, with no step of its own on the server side's stream.
 */
function gatewayEndpoint(
  clientSide: Transport,
  serverSide: Transport,
  operations?: ServerOperations,
): [client: Transport, server: Transport] {
  const channel: Transport = {
    incoming$: serverSide.incoming$,
    closed$: serverSide.closed$,
    send: (message, options) => {
      operations?.calls.sent(channel, message);
      serverSide.send(message, options);
    },
    close: (reason) => serverSide.close(reason),
    auth: operations && CALLER,
  };
  const client: Transport = {
    incoming$: clientSide.incoming$,
    closed$: clientSide.closed$,
    send: (message, options) => {
      operations?.calls.received(channel, message);
      clientSide.send(message, options);
    },
    close: (reason) => clientSide.close(reason),
  };
  return [client, channel];
}

/**
 * The endpoint of a side without operations: the same two wrappers, telling nobody. Every in-memory
 * side passes through one, so that what the wrappers themselves cost (a step per message, which an
 * HTTP server's own handling stands for) is in every figure alike, and a ratio of two sides is what
 * the proxy, or its policies and metrics, add.
 */
const plainEndpoint = (clientSide: Transport, serverSide: Transport) => gatewayEndpoint(clientSide, serverSide);

/** A harness of one side; from stdio to HTTP, with the pid of the process between (none for `direct`). */
export interface ProxyHarness extends CallHarness {
  readonly frontPid?: number | undefined;
}

/** A client calling the bench server directly, or through a proxy (or the relay), over `kind`. */
export async function proxyHarness(kind: ProxyTransport, side: ProxySide): Promise<ProxyHarness> {
  if (kind === 'in-memory') {
    if (side === 'relay') throw new Error('the relay floor runs from stdio to HTTP only');
    const server = createBenchServer();
    if (side === 'direct') return harness(await inMemoryClient(server, plainEndpoint), async () => server.close());
    const upstream = await inMemoryClient(server);
    if (side === 'policed') {
      const operations = new ServerOperations({ callLog: false });
      const front = proxy(upstream, { middleware: gatewayPolicies() });
      return harness(
        await inMemoryClient(front, (client, server) => gatewayEndpoint(client, server, operations)),
        async () => {
          front.close();
          upstream.close();
          server.close();
        },
      );
    }
    const front = proxy(upstream);
    return harness(await inMemoryClient(front, plainEndpoint), async () => {
      front.close();
      upstream.close();
      server.close();
    });
  }
  const server = await startServerProcess(join(__dirname, 'servers/rxmcp-server.js'), ['--http=stateful']);
  if (side === 'direct')
    return harness(await connect(createStreamableHttpClientTransport({ url: server.url }), HANDSHAKE), server.stop);
  const transport = createStdioClientTransport({
    command: process.execPath,
    args: [join(__dirname, FRONT_SCRIPTS[side][0]), server.url, ...FRONT_SCRIPTS[side].slice(1)],
  });
  const client = await connect(transport, HANDSHAKE);
  return { ...harness(client, server.stop), frontPid: transport.pid };
}
