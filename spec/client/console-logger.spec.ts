import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { ConsoleLike } from '../../lib/base/logger';
import { createServer } from '../../lib/server/server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { createStdioServerTransport } from '../../lib/transport/stdio/stdio-server-transport';
import { linkedPair } from '../support/linked-pair';
import { PassThrough } from 'node:stream';

/** A console-like logger that keeps what it was given, by method. */
function consoleLike(): ConsoleLike & { readonly calls: Array<[string, unknown]> } {
  const calls: Array<[string, unknown]> = [];
  return {
    calls,
    error: (message: unknown) => void calls.push(['error', message]),
    warn: (message: unknown) => void calls.push(['warn', message]),
    info: (message: unknown) => void calls.push(['info', message]),
  };
}

describe('logger options take a console-like logger', () => {
  it('connect() and createServer() log through it', async () => {
    const clientLog = consoleLike();
    const serverLog = consoleLike();
    const server = createServer({ name: 'console', version: '1', logger: serverLog });
    const { client: clientSide, server: serverSide } = linkedPair();
    server.connect(serverSide);
    const client = await connect(clientSide, { name: 'console-client', version: '1', logger: clientLog });
    expect(clientLog.calls).toContainEqual(['info', 'connection opened']);
    expect(serverLog.calls).toContainEqual(['info', 'connection opened']);
    const closed = firstValueFrom(client.connection.closed$);
    client.close();
    await closed;
    expect(clientLog.calls).toContainEqual(['info', 'connection closed']);
    server.close();
  });

  it('createStreamableHttpClientTransport logs through it', async () => {
    const log = consoleLike();
    const transport = createStreamableHttpClientTransport({ url: 'http://127.0.0.1:9/mcp', logger: log });
    const closed = firstValueFrom(transport.closed$);
    transport.close();
    await closed;
    expect(log.calls).toContainEqual(['info', 'transport closed']);
  });

  it('a server transport (stdio) logs through it', async () => {
    const log = consoleLike();
    const stdin = new PassThrough();
    const transport = createStdioServerTransport({ stdin, stdout: new PassThrough(), logger: log });
    expect(log.calls).toContainEqual(['info', 'transport opened']);
    const closed = firstValueFrom(transport.closed$);
    stdin.end();
    await closed;
    expect(log.calls).toContainEqual(['info', 'transport closed']);
  });
});
