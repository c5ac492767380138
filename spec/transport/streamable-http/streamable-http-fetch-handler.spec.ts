/**
 * The node handler's scenarios (sessions, JSON or SSE answers, bad input, resumability, idle
 * sessions, bounds) run unchanged against createStreamableHttpFetchHandler behind a fetch-style
 * host: the test server they start is the fetch handler's.
 */
import type * as FetchHost from './fetch-host';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import './streamable-http-handler.spec';

jest.mock('../../../lib/transport/http-server/streamable-http/streamable-http-server', () => {
  const actual = jest.requireActual<Record<string, unknown>>(
    '../../../lib/transport/http-server/streamable-http/streamable-http-server',
  );
  const host = jest.requireActual<typeof FetchHost>('./fetch-host');
  return { ...actual, startStreamableHttpServer: host.startFetchHostedServer };
});

describe('createStreamableHttpFetchHandler: the shared scenarios', () => {
  it('run against the fetch handler, not the node one', async () => {
    const running = await startStreamableHttpServer({ onSession: () => undefined });
    try {
      expect(() => running.handler.handle(undefined as never, undefined as never)).toThrow(
        'served by the fetch handler',
      );
    } finally {
      await running.close();
    }
  });
});
