/**
 * A proxy over stdio in front of a Streamable HTTP upstream, for the proxy-cost workload:
 * `node rxmcp-proxy.js <upstream url>`.
 */
import { connect, createStdioServerTransport, createStreamableHttpClientTransport, proxy } from '../../lib/index';

async function main(url: string): Promise<void> {
  const upstream = await connect(createStreamableHttpClientTransport({ url }), {
    name: 'bench-proxy',
    version: '1.0.0',
    protocolVersion: '2025-11-25',
  });
  const front = proxy(upstream);
  front.connect(createStdioServerTransport()).closed$.subscribe(() => {
    front.close();
    upstream.close();
    process.exit(0);
  });
}

if (require.main === module) void main(process.argv[2]!);
