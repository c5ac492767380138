import { connect } from '../../../lib/client/client';
import { ConnectionClosedError } from '../../../lib/jsonrpc/errors';
import { createServer } from '../../../lib/server/server';
import { SessionNotFoundError } from '../../../lib/transport/http-client/http-errors';
import { createStreamableHttpClientTransport } from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';

/** A server with one tool, over Streamable HTTP on 127.0.0.1 (`port` 0: any free one). */
function serve(port: number): Promise<RunningStreamableHttpServer> {
  const server = createServer({ name: 'restartable', version: '1' });
  server.tool({ name: 'ping', description: 'answers', handler: () => ({ content: [{ type: 'text', text: 'pong' }] }) });
  return startStreamableHttpServer({
    host: '127.0.0.1',
    port,
    onSession: (transport) => void server.connect(transport),
  });
}

// Issue "newcomer", item 6: after a restart, the client said only "session not found".
describe('a Streamable HTTP client whose server restarted', () => {
  let running: RunningStreamableHttpServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('[transport.http.session-gone] fails the call saying the server restarted or ended the session, with the status and what to do', async () => {
    running = await serve(0);
    const { port } = running;
    const transport = createStreamableHttpClientTransport({
      url: running.url,
      openStandaloneStream: false,
      reinitialize: false,
    });
    const client = await connect(transport, { name: 'restart-spec', version: '1', protocolVersion: '2025-11-25' });
    expect((await client.promises.callTool('ping')).content).toEqual([{ type: 'text', text: 'pong' }]);
    await running.close();
    // A restart takes a while: by then the client has seen its idle connection close.
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The same address, a new process's memory: no sessions.
    running = await serve(port);

    const failure = await client.promises.callTool('ping').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConnectionClosedError);
    const { message } = failure as Error;
    expect(message).toMatch(/the server ended or forgot the session \(HTTP 404\)/);
    expect(message).toMatch(/it restarted, or it ended the session/);
    expect(message).toMatch(/Reconnect to start a new session/);
    expect((failure as Error).cause).toBeInstanceOf(SessionNotFoundError);
    expect((failure as Error).cause).toMatchObject({ status: 404, sessionId: expect.any(String) });
    client.close();
  });
});
