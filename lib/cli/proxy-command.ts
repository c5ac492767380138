/**
 * `rxmcp proxy --config <servers.json> [--http <port> | --stdio]`: starts the upstreams of a
 * servers file, serves their aggregate, and closes everything when the user stops it.
 */
import { aggregate } from '../proxy/aggregate';
import { createProxyRouter } from '../proxy/proxy-router';
import type { ProxyRouter } from '../proxy/proxy-router';
import type { CliCommand } from './args';
import { readConfig } from './config';
import { EXIT } from './errors';
import { verbose } from './io';
import type { CliIo } from './io';
import { createCliAuth } from './oauth';
import type { CliAuth } from './oauth';
import { causeOf, createProgress, progressLogger } from './progress';
import type { Progress } from './progress';
import { serveProxy } from './serve';
import { closeUpstreams, startUpstreams } from './upstreams';
import type { Closable, Started, UpstreamOptions } from './upstreams';
import type { McpClient } from '../client/client-api';
import type { UpstreamConnector } from '../proxy/upstream-source';
import { packageVersion } from './version';

type ProxyCommand = Extract<CliCommand, { kind: 'proxy' }>;

/** The clients of the upstreams that connected. */
function connected(started: readonly Started[]): Array<Extract<Started, { ok: true }>> {
  return started.filter((s): s is Extract<Started, { ok: true }> => s.ok);
}

/**
 * What the upstreams are started with: their own transports and clients log errors only (a
 * failure gets a line of its own). A Streamable HTTP upstream that asks for authorization gets a
 * sign-in of its own, made when first asked and kept (with its tokens) through restarts. Each
 * upstream client declares sampling, elicitation (form and URL) and roots, and answers them by
 * asking the downstream caller whose call is running (`router`).
 */
function upstreamOptions(
  io: CliIo,
  progress: Progress,
  auths: Map<string, CliAuth>,
  router: ProxyRouter,
): UpstreamOptions {
  return {
    info: { name: 'rxmcp', version: packageVersion() },
    answers: router.clientOptions,
    logger: progressLogger(progress, verbose(io) ? 'info' : 'error'),
    stderrLine: (name: string, line: string) => void io.stderr.write(`[${name}] ${line}\n`),
    strayLine: (name: string, warning: string) => progress.note(`${name}: ${warning}`),
    authFor: (upstream) => {
      let auth = auths.get(upstream.name);
      if (!auth) {
        auth = createCliAuth({
          callbackPort: 0,
          clientName: 'rxmcp proxy',
          show: (url) => progress.note(`${upstream.name} asks you to sign in: open ${url.href}`),
        });
        auths.set(upstream.name, auth);
      }
      return auth;
    },
  };
}

/**
 * The connector of an upstream that started: its first connection is the one already made; later
 * ones start it again (a progress line each), and the latest is what shutting down closes.
 */
function restartable(
  first: Extract<Started, { ok: true }>,
  options: UpstreamOptions,
  progress: Progress,
  current: Map<string, Closable>,
): UpstreamConnector {
  let made: McpClient | undefined = first.client;
  const { upstream } = first;
  return {
    connect: async () => {
      if (made) {
        const client = made;
        made = undefined;
        return client;
      }
      const again = await startUpstreams([upstream], options, progress);
      const started = again[0]!;
      if (!started.ok) throw new Error(started.cause);
      current.set(upstream.name, started);
      return started.client;
    },
  };
}

/** Runs `rxmcp proxy` until the user stops it; resolves with the exit code. Throws `ConfigError` for a bad file. */
export async function runProxy(command: ProxyCommand, io: CliIo): Promise<number> {
  const progress = createProgress(io.stderr);
  const upstreams = await readConfig(command.config, io.env);
  const auths = new Map<string, CliAuth>();
  const router = createProxyRouter();
  const options = upstreamOptions(io, progress, auths, router);
  try {
    const startup = startUpstreams(upstreams, options, progress);
    const first = await Promise.race([startup, io.interrupted.then(() => undefined)]);
    if (first === undefined) {
      // Stopped while upstreams were starting: close each as it arrives.
      await closeUpstreams(connected(await startup));
      return EXIT.ok;
    }
    const live = connected(first);
    if (live.length === 0) {
      progress.error(`none of the ${upstreams.length} upstreams of ${command.config} could be started`);
      return EXIT.failed;
    }
    return await serveUntilStopped(command, io, progress, live, options, router);
  } finally {
    router.close();
    await Promise.all([...auths.values()].map((auth) => auth.close()));
  }
}

/** Why serving could not start, as the user can act on it. */
function servingFailure(command: ProxyCommand, error: unknown): string {
  const { serve } = command;
  if ((error as { code?: unknown }).code === 'EADDRINUSE' && serve.kind === 'http') {
    return `port ${serve.port} of 127.0.0.1 is in use; choose another with --http <port> (0: any free port)`;
  }
  return causeOf(error);
}

async function serveUntilStopped(
  command: ProxyCommand,
  io: CliIo,
  progress: Progress,
  live: ReadonlyArray<Extract<Started, { ok: true }>>,
  options: UpstreamOptions,
  router: ProxyRouter,
): Promise<number> {
  const logger = progressLogger(progress, verbose(io) ? 'info' : 'warn');
  // Each upstream that started is served through a connector: when it goes away (a server process
  // that crashed, a remote that dropped), the aggregate starts it again with backoff.
  const current = new Map(live.map((started) => [started.upstream.name, started as Closable]));
  const proxy = aggregate(
    Object.fromEntries(
      live.map((started) => [started.upstream.name, restartable(started, options, progress, current)]),
    ),
    { name: 'rxmcp', version: packageVersion(), logger, router },
  );
  let serving;
  try {
    serving = await serveProxy(proxy, command.serve, io, logger, { upstreams: current, log: command.log });
  } catch (error) {
    progress.error(`cannot serve: ${servingFailure(command, error)}`);
    proxy.close();
    await closeUpstreams([...current.values()]);
    return EXIT.failed;
  }
  const count = `${live.length} upstream${live.length === 1 ? '' : 's'}`;
  progress.note(serving.where === 'stdio' ? `serving ${count} on stdio` : `serving ${count} at ${serving.where}`);
  const reason = await Promise.race([serving.ended, io.interrupted]);
  progress.note(`shutting down (${reason})`);
  proxy.close();
  await serving.close();
  await closeUpstreams([...current.values()]);
  return EXIT.ok;
}
