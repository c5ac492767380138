/**
 * Starting the upstreams of `rxmcp proxy`: each entry of the servers file becomes a connected
 * client (a spawned process over stdio, or a remote server over HTTP), all at once; one that fails
 * is reported and left out while the others serve.
 */
import { firstValueFrom } from '../rx/rxjs';
import { connect } from '../client/client';
import type { McpClient } from '../client/client';
import type { ClientOptions } from '../client/client-api';
import type { ConsoleLike, LoggerOption } from '../base/logger';
import { createHttpSseClientTransport } from '../transport/http-client/http-sse/http-sse-client-transport';
import { createStdioClientTransport } from '../transport/stdio/stdio-client-transport';
import type { StdioClientTransport } from '../transport/stdio/stdio-client-transport';
import { createStreamableHttpClientTransport } from '../transport/http-client/streamable-http/streamable-http-client-transport';
import type { Transport } from '../transport/transport';
import type { Upstream } from './config';
import type { CliAuth } from './oauth';
import { causeOf } from './progress';
import type { Progress } from './progress';
import { EVENTS_EXTENSION } from '../schema/events';

/** What every upstream is started with. */
export interface UpstreamOptions {
  /** The client's name and version, as upstream servers see them. */
  readonly info: { readonly name: string; readonly version: string };
  readonly logger: LoggerOption;
  /** Where a spawned server's stderr lines go, prefixed with its name. */
  readonly stderrLine: (name: string, line: string) => void;
  /**
   * Where the warning about a line a spawned server wrote to stdout that is not an MCP message
   * goes, whatever the level of `logger` (that line is the server's bug, and often why it then
   * misbehaves). Without it, the warning goes to `logger`.
   */
  readonly strayLine?: (name: string, warning: string) => void;
  /**
   * An upstream not connected (handshake and tool list) this long after it started has failed,
   * unless its user is signing in. Default 30 s.
   */
  readonly startTimeoutMs?: number;
  /** The authorization of a Streamable HTTP upstream, for a server that asks for it. */
  readonly authFor?: (upstream: Upstream) => CliAuth | undefined;
  /**
   * How every upstream client answers its server's requests (sampling, elicitation, roots): the
   * proxy's `ProxyRouter.clientOptions`, which ask the downstream caller. Without it, the upstream
   * clients declare none of these and their servers cannot ask.
   */
  readonly answers?: Pick<ClientOptions, 'sampling' | 'elicitation' | 'roots'>;
}

/** The default of {@link UpstreamOptions.startTimeoutMs}. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

/** An upstream that connected, or the reason it did not. */
export type Started =
  | {
      readonly ok: true;
      readonly upstream: Upstream;
      readonly client: McpClient;
      /** The client's transport: its close tells when a spawned server has exited. */
      readonly transport: Transport;
      readonly tools: number | undefined;
    }
  | { readonly ok: false; readonly upstream: Upstream; readonly cause: string };

/** How an upstream is reached, as the progress lines say it. */
export function describeTransport(upstream: Upstream): string {
  return upstream.kind === 'stdio' ? 'stdio' : upstream.kind === 'sse' ? `sse ${upstream.url}` : `http ${upstream.url}`;
}

/**
 * The logger of a spawned server's transport: its warnings about stray stdout lines (the records
 * that quote a `line`) go to `strayLine`; everything else to the upstreams' logger. A pino logger
 * is used as it is.
 */
function stdioLogger(name: string, options: UpstreamOptions): LoggerOption {
  const { logger, strayLine } = options;
  if (strayLine === undefined || typeof (logger as { child?: unknown }).child === 'function') return logger;
  const target = logger as ConsoleLike;
  return {
    error: (...data: unknown[]) => target.error(...data),
    info: (...data: unknown[]) => target.info(...data),
    debug: (...data: unknown[]) => (target.debug ?? target.info).apply(target, data),
    warn: (...data: unknown[]) => {
      const [message, record] = data as [unknown, { line?: unknown } | undefined];
      if (typeof record?.line === 'string') strayLine(name, String(message));
      else target.warn(...data);
    },
  };
}

/** The transport an entry asks for. */
export function transportFor(upstream: Upstream, options: UpstreamOptions): Transport {
  const logger = options.logger;
  switch (upstream.kind) {
    case 'stdio': {
      const transport: StdioClientTransport = createStdioClientTransport({
        command: upstream.command,
        args: upstream.args,
        env: upstream.env,
        ...(upstream.cwd !== undefined ? { cwd: upstream.cwd } : {}),
        stderr: 'pipe',
        logger: stdioLogger(upstream.name, options),
      });
      transport.stderr$.subscribe((line) => options.stderrLine(upstream.name, line));
      return transport;
    }
    case 'sse':
      return createHttpSseClientTransport({ url: upstream.url, headers: upstream.headers, logger });
    case 'http': {
      const auth = options.authFor?.(upstream);
      return createStreamableHttpClientTransport({
        url: upstream.url,
        headers: upstream.headers,
        logger,
        ...(auth ? { auth } : {}),
      });
    }
  }
}

/** Connects to one upstream; resolves with its client and tool count, or with why it failed. Never rejects. */
export async function startUpstream(upstream: Upstream, options: UpstreamOptions): Promise<Started> {
  let transport: Transport;
  try {
    transport = transportFor(upstream, options);
  } catch (error) {
    return { ok: false, upstream, cause: causeOf(error) };
  }
  const limitMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const auth = upstream.kind === 'http' ? options.authFor?.(upstream) : undefined;
  const tooSlow = new Promise<never>((_resolve, reject) => {
    // The user signing in takes the time it takes (the sign-in has its own limit).
    const check = () => {
      if (auth?.signingIn) timer = setTimeout(check, limitMs);
      else reject(new Error(`did not answer within ${limitMs / 1000} s`));
    };
    timer = setTimeout(check, limitMs);
  });
  try {
    // A server that died during the handshake may leave only its transport's close to tell why.
    const closed = firstValueFrom(transport.closed$).then((close) => close.error ?? new Error(close.reason));
    const handshake = async () => {
      // Partial tool results pass through the gateway to callers that ask for them.
      const client = await connect(transport, {
        ...options.info,
        ...options.answers,
        partialResults: true,
        // Events pass through too: the gateway follows an upstream's polls and streams for its callers.
        extensions: { [EVENTS_EXTENSION]: { delivery: ['push', 'poll'] } },
        logger: options.logger,
      });
      const listed = client.serverCapabilities.tools ? await firstValueFrom(client.listTools()) : undefined;
      return { client, tools: listed?.length };
    };
    const { client, tools } = await Promise.race([handshake(), tooSlow, closed.then((e) => Promise.reject(e))]);
    return { ok: true, upstream, client, transport, tools };
  } catch (error) {
    transport.close('failed to start');
    return { ok: false, upstream, cause: causeOf(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** Starts every upstream at once, reporting each as it connects or fails. */
export function startUpstreams(
  upstreams: readonly Upstream[],
  options: UpstreamOptions,
  progress: Progress,
): Promise<Started[]> {
  return Promise.all(
    upstreams.map(async (upstream) => {
      progress.starting(upstream.name, describeTransport(upstream));
      const started = await startUpstream(upstream, options);
      if (started.ok) {
        const tools =
          started.tools === undefined ? 'no tools' : `${started.tools} tool${started.tools === 1 ? '' : 's'}`;
        progress.connected(upstream.name, `${describeTransport(upstream)}, ${tools}`);
      } else progress.failed(upstream.name, started.cause);
      return started;
    }),
  );
}

/** What {@link closeUpstreams} closes: a client and the transport under it. */
export interface Closable {
  readonly client: McpClient;
  readonly transport: Transport;
}

/**
 * Closes the clients and waits (at most `withinMs`) until their transports have closed: a spawned
 * server has exited (the stdio transport ends its stdin, then signals it), a remote session is ended.
 */
export async function closeUpstreams(upstreams: readonly Closable[], withinMs = 6000): Promise<void> {
  const closed = upstreams.map(({ transport }) => firstValueFrom(transport.closed$, { defaultValue: undefined }));
  for (const { client } of upstreams) client.close('rxmcp is shutting down');
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, withinMs);
    timer.unref();
  });
  await Promise.race([Promise.all(closed), deadline]);
  clearTimeout(timer);
}
