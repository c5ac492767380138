/**
 * A proxy over stdio in front of a Streamable HTTP upstream, for the proxy-cost workload:
 * `node rxmcp-proxy.js <upstream url> [--policed]`. With `--policed` it runs the gateway's
 * policies and metrics (see `gatewayPolicies` in proxy-cost.ts): its stdio caller stands for the
 * verified caller an HTTP endpoint would have, and each request is counted as the HTTP server
 * counts it.
 */
import { tap } from 'rxjs';
import { connect, createStdioServerTransport, createStreamableHttpClientTransport, proxy } from '../../lib/index';
import type { Transport } from '../../lib/index';
import { ServerOperations } from '../../lib/operations/server-operations';
import { CALLER, gatewayPolicies } from '../proxy-cost';

/**
 * `transport` as an endpoint presents it: policed, with its caller and its requests followed by
 * `operations`; plain, with the same step per message telling nobody, so that what the step itself
 * costs is on both sides alike.
 */
function endpointChannel(transport: Transport, operations?: ServerOperations): Transport {
  const channel: Transport = {
    incoming$: transport.incoming$.pipe(tap((frame) => operations?.calls.received(channel, frame))),
    closed$: transport.closed$,
    send: (message, options) => {
      operations?.calls.sent(channel, message);
      transport.send(message, options);
    },
    close: (reason) => transport.close(reason),
    auth: operations && CALLER,
  };
  return channel;
}

async function main(url: string, policed: boolean): Promise<void> {
  const upstream = await connect(createStreamableHttpClientTransport({ url }), {
    name: 'bench-proxy',
    version: '1.0.0',
    protocolVersion: '2025-11-25',
  });
  const front = proxy(upstream, policed ? { middleware: gatewayPolicies() } : {});
  const stdio = createStdioServerTransport();
  front
    .connect(endpointChannel(stdio, policed ? new ServerOperations({ callLog: false }) : undefined))
    .closed$.subscribe(() => {
      front.close();
      upstream.close();
      process.exit(0);
    });
}

if (require.main === module) void main(process.argv[2]!, process.argv.includes('--policed'));
