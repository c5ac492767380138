import { readFileSync } from 'node:fs';
import { Agent, createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import {
  connect,
  createServer,
  createStreamableHttpClientTransport,
  createStreamableHttpHandler,
} from '../../../lib/index';
import type { McpClient, StreamableHttpHandler } from '../../../lib/index';

// A self-signed certificate for 127.0.0.1, made for these tests only.
const TLS = join(__dirname, '../../fixtures/tls');
const cert = readFileSync(join(TLS, 'cert.pem'));
const key = readFileSync(join(TLS, 'key.pem'));

let server: Server | undefined;
let mcp: StreamableHttpHandler | undefined;
let client: McpClient | undefined;
const agents: Agent[] = [];

async function serveOverTls(): Promise<string> {
  const definition = createServer({ name: 'tls', version: '1.0.0' });
  definition.tool({
    name: 'echo',
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
  });
  mcp = createStreamableHttpHandler({ onSession: (transport) => void definition.connect(transport) });
  const handler = mcp;
  server = createHttpsServer({ cert, key }, (req, res) => handler.handle(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

function agent(options: ConstructorParameters<typeof Agent>[0]): Agent {
  const made = new Agent(options);
  agents.push(made);
  return made;
}

afterEach(async () => {
  if (client) {
    const closed = firstValueFrom(client.connection.closed$);
    client.close();
    await closed;
    client = undefined;
  }
  mcp?.close();
  for (const made of agents.splice(0)) made.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('Streamable HTTP over TLS', () => {
  it('calls a tool through node:https with an agent that trusts the server’s certificate', async () => {
    const url = await serveOverTls();
    const trusting = agent({ ca: cert, keepAlive: true });
    const destroy = jest.spyOn(trusting, 'destroy');
    client = await connect(createStreamableHttpClientTransport({ url, agent: trusting }), {
      name: 'c',
      version: '1.0.0',
    });
    const first = await client.promises.callTool('echo', { text: 'over tls' });
    const second = await client.promises.callTool('echo', { text: 'again' });
    expect([first.content, second.content]).toEqual([
      [{ type: 'text', text: 'over tls' }],
      [{ type: 'text', text: 'again' }],
    ]);
    // The agent passed in carried the requests, and it is the caller's: closing the client leaves it open.
    expect(Object.keys(trusting.sockets).length + Object.keys(trusting.freeSockets).length).toBeGreaterThan(0);
    const closed = firstValueFrom(client.connection.closed$);
    client.close();
    await closed;
    client = undefined;
    expect(destroy).not.toHaveBeenCalled();
  });

  it('verifies the certificate by default: a self-signed one fails the connection with a clear error', async () => {
    const url = await serveOverTls();
    await expect(
      connect(createStreamableHttpClientTransport({ url }), { name: 'c', version: '1.0.0' }),
    ).rejects.toThrow(/self[- ]signed/i);
  });
});
