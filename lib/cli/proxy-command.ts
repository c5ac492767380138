/**
 * `rxmcp proxy --config <servers.json> [--http <port> [--host <address>] | --stdio] [--watch]`:
 * starts the upstreams of a servers file, serves their aggregate, reads the file again on SIGHUP
 * (and with `--watch`, when it changes), and closes everything when the user stops it.
 */
import { aggregate } from '../proxy/aggregate';
import { createProxyRouter } from '../proxy/proxy-router';
import type { ProxyRouter } from '../proxy/proxy-router';
import type { CliCommand } from './args';
import { namespaceOf, readProxyConfig } from './config';
import type { ProxyConfig, Upstream } from './config';
import { CONFIG_SCHEMA } from './config-schema';
import { reloadTriggers } from './reload';
import { EXIT } from './errors';
import { verbose } from './io';
import type { CliIo } from './io';
import { createCliAuth } from './oauth';
import type { CliAuth, CliAuthOptions } from './oauth';
import { createFileOAuthStorage } from '../auth/storage';
import type { UpstreamOAuth } from './upstream-oauth';
import { causeOf, createProgress, progressLogger } from './progress';
import type { Progress } from './progress';
import { serveProxy } from './serve';
import type { LoggerOption } from '../base/logger';
import { GatewayRuntime, noteProtection } from './gateway-runtime';
import type { PreparedGateway } from './gateway-runtime';
import { closeUpstreams, startUpstream, startUpstreams } from './upstreams';
import type { Closable, Started, UpstreamOptions } from './upstreams';
import type { McpClient } from '../client/client-api';
import type { UpstreamConfig, UpstreamConnector } from '../proxy/upstream-source';
import type { ReconfigurableAggregate } from '../proxy/aggregate';
import { DEFAULT_HOST } from './args';
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
        const oauth = upstream.kind === 'stdio' ? undefined : upstream.oauth;
        auth = createCliAuth({
          callbackPort: oauth?.callbackPort ?? 0,
          clientName: 'rxmcp proxy',
          show: (url) => progress.note(`${upstream.name} asks you to sign in: open ${url.href}`),
          ...(oauth ? signInOptions(oauth) : {}),
        });
        auths.set(upstream.name, auth);
      }
      return auth;
    },
  };
}

/** What an upstream's `oauth` asks of its sign-in: the grant, the client, the scopes, the token file. */
function signInOptions(oauth: UpstreamOAuth): Partial<CliAuthOptions> {
  return {
    grant: oauth.grant,
    storage: createFileOAuthStorage(oauth.tokenFile),
    ...(oauth.client ? { client: oauth.client } : {}),
    ...(oauth.scope !== undefined ? { scope: oauth.scope } : {}),
  };
}

/** The options one upstream is started with: its own start timeout, where the file sets one. */
function optionsFor(upstream: Upstream, options: UpstreamOptions): UpstreamOptions {
  const limit = upstream.policy?.startTimeoutMs;
  return limit === undefined ? options : { ...options, startTimeoutMs: limit };
}

/**
 * The connector of a shared upstream: its first connection is the one already made (when there is
 * one); later ones start it again (a progress line each), and the latest is what shutting down closes.
 */
function restartable(
  upstream: Upstream,
  first: McpClient | undefined,
  options: UpstreamOptions,
  progress: Progress,
  current: Map<string, Closable>,
): UpstreamConnector {
  let made: McpClient | undefined = first;
  return {
    connect: async () => {
      if (made) {
        const client = made;
        made = undefined;
        return client;
      }
      const again = await startUpstreams([upstream], optionsFor(upstream, options), progress);
      const started = again[0]!;
      if (!started.ok) throw new Error(started.cause);
      current.set(upstream.name, started);
      return started.client;
    },
  };
}

/** The connector of a `"sharing": "perSession"` upstream: a new one for each downstream session, closed with it. */
function perSession(upstream: Upstream, options: UpstreamOptions): UpstreamConnector {
  return {
    connect: async () => {
      const started = await startUpstream(upstream, optionsFor(upstream, options));
      if (!started.ok) throw new Error(`${upstream.name}: ${started.cause}`);
      return started.client;
    },
  };
}

/** The aggregate's entry of an upstream: its connector and the policies its entry in the file sets. */
function entryOf(upstream: Upstream, connector: UpstreamConnector): UpstreamConfig {
  const { namespace, tools, prompts, resources, sharing, reconnect } = upstream.policy ?? {
    namespace: namespaceOf(upstream.name),
  };
  return {
    upstream: connector,
    namespace,
    ...(tools ? { tools } : {}),
    ...(prompts ? { prompts } : {}),
    ...(resources ? { resources } : {}),
    ...(sharing ? { sharing } : {}),
    ...(reconnect !== undefined ? { reconnect } : {}),
  };
}

const isShared = (upstream: Upstream) => upstream.policy?.sharing !== 'perSession';

/** Runs `rxmcp proxy` until the user stops it; resolves with the exit code. Throws `ConfigError` for a bad file. */
export async function runProxy(command: ProxyCommand, io: CliIo): Promise<number> {
  if (command.printSchema) {
    io.stdout.write(`${JSON.stringify(CONFIG_SCHEMA, null, 2)}\n`);
    return EXIT.ok;
  }
  const progress = createProgress(io.stderr);
  const config = await readProxyConfig(command.config, io.env);
  const auths = new Map<string, CliAuth>();
  const router = createProxyRouter();
  const options = upstreamOptions(io, progress, auths, router);
  try {
    const shared = config.upstreams.filter(isShared);
    const startup = startUpstreams(shared, options, progress);
    const first = await Promise.race([startup, io.interrupted.then(() => undefined)]);
    if (first === undefined) {
      // Stopped while upstreams were starting: close each as it arrives.
      await closeUpstreams(connected(await startup));
      return EXIT.ok;
    }
    const live = connected(first);
    if (live.length === 0 && shared.length === config.upstreams.length) {
      progress.error(`none of the ${config.upstreams.length} upstreams of ${command.config} could be started`);
      return EXIT.failed;
    }
    return await serveUntilStopped(command, io, progress, config, live, options, router);
  } finally {
    router.close();
    await Promise.all([...auths.values()].map((auth) => auth.close()));
  }
}

/** Why serving could not start, as the user can act on it. */
function servingFailure(command: ProxyCommand, error: unknown): string {
  const { serve } = command;
  if ((error as { code?: unknown }).code === 'EADDRINUSE' && serve.kind === 'http') {
    return `port ${serve.port} of ${serve.host ?? DEFAULT_HOST} is in use; choose another with --http <port> (0: any free port)`;
  }
  return causeOf(error);
}

/** The upstreams the aggregate serves, and what each was made from (to tell a changed entry). */
class Members {
  readonly entries = new Map<string, UpstreamConfig>();
  private readonly written = new Map<string, string>();

  set(upstream: Upstream, entry: UpstreamConfig): void {
    this.entries.set(upstream.name, entry);
    this.written.set(upstream.name, JSON.stringify(upstream));
  }

  same(upstream: Upstream): boolean {
    return this.written.get(upstream.name) === JSON.stringify(upstream);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** The members one connection serves for every client: those `/readyz` waits for. */
  shared(): string[] {
    return [...this.entries].filter(([, entry]) => entry.sharing !== 'perSession').map(([name]) => name);
  }
}

/** What a reload needs. */
interface ReloadContext {
  readonly command: ProxyCommand;
  readonly io: CliIo;
  readonly progress: Progress;
  readonly proxy: ReconfigurableAggregate;
  readonly members: Members;
  readonly current: Map<string, Closable>;
  readonly options: UpstreamOptions;
  readonly config: ProxyConfig;
  /** The serving keys (`auth`, `policies`, `metrics`), replaced by a reload. */
  readonly gateway: GatewayRuntime;
  readonly logger: LoggerOption;
  /** Tells the operations endpoints that the members changed. */
  readonly changed: () => void;
}

/**
 * Reads the servers file again and applies it: new servers join, removed ones leave, changed ones
 * start again; the others, and every downstream session, carry on; `auth`, `policies` and
 * `metrics` are replaced. A file that cannot be read, is not valid, or whose policies cannot be
 * applied (Redis unreachable) changes nothing: its error goes to stderr.
 */
async function reload(context: ReloadContext, why: string): Promise<void> {
  const { command, progress } = context;
  const refused = (error: unknown) =>
    progress.error(`${why}: ${command.config} not reloaded, the running servers stay: ${causeOf(error)}`);
  let next: ProxyConfig;
  let gateway: PreparedGateway;
  try {
    next = await readProxyConfig(command.config, context.io.env);
    gateway = await context.gateway.prepare(next, context.logger);
  } catch (error) {
    refused(error);
    return;
  }
  const said = reconfigure(context, next);
  if (said instanceof Error) {
    await gateway.discard();
    refused(said);
    return;
  }
  said.push(...(await gateway.commit()).map((key) => `~${key}`));
  context.changed();
  progress.note(`${why}: reloaded ${command.config}${said.length > 0 ? ` (${said.join(' ')})` : ', nothing changed'}`);
  // The aggregate's own options (separator, sharing...) are read once.
  if (JSON.stringify(next.settings) !== JSON.stringify(context.config.settings))
    progress.note(
      `${why}: the aggregate's options beside the servers list (separator, sharing...) take effect on restart`,
    );
}

/** Applies the servers list of `next`; answers what changed (`+added ~changed -removed`), or why it could not. */
function reconfigure(context: ReloadContext, next: ProxyConfig): string[] | Error {
  const { progress, proxy, members, current, options } = context;
  const before = new Set(members.names());
  const kept = new Set(
    next.upstreams.filter((upstream) => before.has(upstream.name) && members.same(upstream)).map((u) => u.name),
  );
  const made = new Map<string, UpstreamConfig>();
  for (const upstream of next.upstreams) {
    if (kept.has(upstream.name)) continue;
    const connector = isShared(upstream)
      ? restartable(upstream, undefined, options, progress, current)
      : perSession(upstream, options);
    made.set(upstream.name, entryOf(upstream, connector));
  }
  const entries = Object.fromEntries(
    next.upstreams.map((upstream) => [upstream.name, made.get(upstream.name) ?? members.entries.get(upstream.name)!]),
  );
  try {
    proxy.reconfigure(entries, (key) => kept.has(key));
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
  const names = new Set(next.upstreams.map((upstream) => upstream.name));
  for (const name of before) if (!names.has(name)) members.entries.delete(name);
  for (const name of before) if (!names.has(name) || made.has(name)) current.delete(name);
  for (const upstream of next.upstreams) if (made.has(upstream.name)) members.set(upstream, made.get(upstream.name)!);
  const added = [...made.keys()].filter((name) => !before.has(name));
  const changed = [...made.keys()].filter((name) => before.has(name));
  const removed = [...before].filter((name) => !names.has(name));
  return [
    ...added.map((name) => `+${name}`),
    ...changed.map((name) => `~${name}`),
    ...removed.map((name) => `-${name}`),
  ];
}

async function serveUntilStopped(
  command: ProxyCommand,
  io: CliIo,
  progress: Progress,
  config: ProxyConfig,
  live: ReadonlyArray<Extract<Started, { ok: true }>>,
  options: UpstreamOptions,
  router: ProxyRouter,
): Promise<number> {
  const logger = progressLogger(progress, verbose(io) ? 'info' : 'warn');
  // Each shared upstream that started is served through a connector: when it goes away (a server
  // process that crashed, a remote that dropped), the aggregate starts it again with backoff.
  const current = new Map(live.map((started) => [started.upstream.name, started as Closable]));
  const members = new Members();
  for (const upstream of config.upstreams) {
    const started = live.find((s) => s.upstream.name === upstream.name);
    if (isShared(upstream) && !started) continue;
    const connector = started
      ? restartable(upstream, started.client, options, progress, current)
      : perSession(upstream, options);
    members.set(upstream, entryOf(upstream, connector));
  }
  const { settings } = config;
  let gateway: GatewayRuntime;
  try {
    gateway = await GatewayRuntime.start(config, logger);
  } catch (error) {
    progress.error(`cannot apply the policies of ${command.config}: ${causeOf(error)}`);
    await closeUpstreams([...current.values()]);
    return EXIT.failed;
  }
  const proxy = aggregate(Object.fromEntries(members.entries), {
    name: 'rxmcp',
    version: packageVersion(),
    logger,
    router,
    middleware: gateway.middleware,
    ...settings,
  });
  const separator = settings.separator ?? '_';
  const prefixOf = (name: string) => {
    const namespace = members.entries.get(name)?.namespace ?? namespaceOf(name);
    return namespace === '' ? '' : `${namespace}${separator}`;
  };
  let serving;
  try {
    serving = await serveProxy(proxy, command.serve, io, logger, {
      upstreams: current,
      members: () => members.shared(),
      log: command.log,
      prefixOf,
      auth: gateway.auth,
      get metricsToken() {
        return gateway.metricsToken;
      },
      readiness: gateway.readiness,
    });
  } catch (error) {
    progress.error(`cannot serve: ${servingFailure(command, error)}`);
    proxy.close();
    await gateway.close();
    await closeUpstreams([...current.values()]);
    return EXIT.failed;
  }
  const count = `${members.entries.size} upstream${members.entries.size === 1 ? '' : 's'}`;
  progress.note(serving.where === 'stdio' ? `serving ${count} on stdio` : `serving ${count} at ${serving.where}`);
  noteProtection(progress, config, command.serve);
  const changed = () => serving.upstreamsChanged();
  const context: ReloadContext = {
    ...{ command, io, progress, proxy, members, current, options, config },
    ...{ gateway, logger, changed },
  };
  const reloading = reloadTriggers({
    file: command.config,
    watch: command.watch === true,
    reload: (why) => reload(context, why),
  });
  const reason = await Promise.race([serving.ended, io.interrupted]);
  progress.note(`shutting down (${reason})`);
  await reloading.close();
  proxy.close();
  await serving.close();
  await gateway.close();
  await closeUpstreams([...current.values()]);
  return EXIT.ok;
}
