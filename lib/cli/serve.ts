/**
 * Serving the aggregate of `rxmcp proxy`: on this process's stdin and stdout (one client), or as a
 * Streamable HTTP endpoint on 127.0.0.1 (any number of clients: sessions of the handshake
 * revisions, and requests of the stateless ones, side by side).
 */
import { firstValueFrom } from '../rx/rxjs';
import type { LoggerOption } from '../jsonrpc/logger';
import type { McpProxy } from '../proxy/front';
import { createStdioServerTransport } from '../transport/stdio/stdio-server-transport';
import { startStreamableHttpServer } from '../transport/streamable-http/streamable-http-server';
import type { ServeMode } from './args';

/** The aggregate being served. */
export interface Serving {
  /** Where it is served: the endpoint URL, or `stdio`. */
  readonly where: string;
  /** Resolves when serving ended on its own (under stdio: the client closed stdin). */
  readonly ended: Promise<string>;
  /** Stops serving; resolves once every listener is closed. */
  close(): Promise<void>;
}

/** The streams `--stdio` serves on. */
export interface StdioStreams {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
}

/** Serves `proxy` as `mode` asks. Rejects when the HTTP port cannot be bound. */
export async function serveProxy(
  proxy: McpProxy,
  mode: ServeMode,
  streams: StdioStreams,
  logger: LoggerOption,
): Promise<Serving> {
  if (mode.kind === 'http') {
    const running = await startStreamableHttpServer({ server: proxy, port: mode.port, host: '127.0.0.1', logger });
    return {
      where: running.url.href,
      // An HTTP server keeps serving until it is closed.
      ended: new Promise<string>(() => undefined),
      close: () => running.close(),
    };
  }
  const transport = createStdioServerTransport({ stdin: streams.stdin, stdout: streams.stdout, logger });
  proxy.connect(transport);
  return {
    where: 'stdio',
    ended: firstValueFrom(transport.closed$).then((close) => close.reason),
    close: () => {
      transport.close('rxmcp is shutting down');
      return Promise.resolve();
    },
  };
}
