import type { ChildProcess } from 'node:child_process';
import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import { ConnectionClosedError, TransportError } from '../../lib/jsonrpc/errors';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startExample } from '../support/example-server';

// Issue "newcomer", item 6: a call with progress waited its whole timeout after the server died,
// though the transport had given up reconnecting seconds before.
describe('a Streamable HTTP call whose server process dies mid-call', () => {
  let child: ChildProcess | undefined;

  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
  });

  it.each(['2025-11-25', undefined] as const)(
    'fails promptly with ConnectionClosedError naming the cause (revision %s)',
    async (protocolVersion) => {
      const started = await startExample();
      child = started.child;
      const died = new Promise((done) => started.child.once('exit', done));
      const transport = createStreamableHttpClientTransport({
        url: started.url,
        reconnect: { initialDelayMs: 50, maxRetries: 2 },
      });
      const client = await connect(transport, {
        name: 'death-spec',
        version: '1.0.0',
        ...(protocolVersion ? { protocolVersion } : {}),
      });
      const closed = firstValueFrom(transport.closed$);
      const since = Date.now();
      const call = client.promises.callTool(
        'countdown',
        { from: 1000, intervalMs: 20 },
        {
          timeoutMs: 15_000,
          onProgress: ({ progress }) => {
            if (progress === 3) started.child.kill('SIGKILL');
          },
        },
      );
      const failure = await call.then(
        () => undefined,
        (error: unknown) => error,
      );
      await died;
      // Well before the call's timeout: the transport gave up, so the call did too.
      expect(Date.now() - since).toBeLessThan(5_000);
      expect(failure).toBeInstanceOf(ConnectionClosedError);
      expect((failure as Error).message).toMatch(/ECONNREFUSED/);
      expect((failure as Error).cause).toBeInstanceOf(TransportError);
      expect((await closed).error).toBeInstanceOf(TransportError);
      client.close();
    },
  );
});
