/**
 * What `rxmcp proxy` serves with beside its upstreams, replaced as one when the servers file is
 * read again: who may call it (`auth`), the policies (limits and tool visibility per caller) and
 * the token of `/metrics`; and, when the policies count in Redis, `/readyz`'s check of Redis.
 * Requests under way finish under what they started with; downstream sessions stay.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { LoggerOption } from '../base/logger';
import type { ReadinessCheck } from '../operations/server-operations';
import { replaceableMiddleware } from '../server/middleware-runner';
import type { ServerMiddleware } from '../server/middleware';
import type { AuthOutcome, AuthRefusal, RequestAuthenticator } from '../transport/http/request-auth';
import { DEFAULT_HOST } from './args';
import type { ServeMode } from './args';
import { describeGatewayAuth, gatewayAuthenticator } from './gateway-auth';
import type { GatewayOptions } from './gateway-options';
import { gatewayMiddleware } from './gateway-policies';
import type { GatewayMiddleware } from './gateway-policies';
import type { Progress } from './progress';
import { isLoopback } from './serve';

/** One reading of the serving keys, made: its policies' middleware and its authenticator. */
interface Made {
  readonly options: GatewayOptions;
  readonly policies: GatewayMiddleware;
  readonly authenticator: RequestAuthenticator | undefined;
}

/** A new reading made and not yet in place: {@link GatewayRuntime.prepare}. */
export interface PreparedGateway {
  /** Puts it in place; answers what changed, in words (`auth`, `policies`, `metrics`). */
  commit(): Promise<string[]>;
  /** Drops it (the reload was refused elsewhere): what it opened is closed. */
  discard(): Promise<void>;
}

/** The serving keys of the running gateway. */
export class GatewayRuntime {
  /** The policies, as one middleware of the aggregate's chain: replaced in place on reload. */
  private readonly policies = replaceableMiddleware([]);
  /** `/readyz`'s checks beside the upstreams: `redis` while the policies count there. */
  readonly readiness: Record<string, ReadinessCheck> = {};
  /** Who may call the HTTP endpoint: the current `auth`; none when the file had no `auth` at start. */
  readonly auth: RequestAuthenticator | undefined;
  private made: Made;

  private constructor(made: Made) {
    this.made = made;
    this.auth = made.authenticator && new CurrentAuthenticator(() => this.made.authenticator!);
    this.install(made);
  }

  /** The gateway of `options`; rejects when its Redis cannot be reached. */
  static async start(options: GatewayOptions, logger: LoggerOption | undefined): Promise<GatewayRuntime> {
    return new GatewayRuntime(await make(options, logger, undefined));
  }

  /** The middleware to put in the aggregate's chain. */
  get middleware(): readonly ServerMiddleware[] {
    return [this.policies.middleware];
  }

  /** The bearer token a scraper of `/metrics` presents; absent: `/metrics` takes `auth`. */
  get metricsToken(): string | undefined {
    return this.made.options.metricsToken;
  }

  /**
   * Makes what `next` says, to be put in place once the rest of the reload is: rejects (and changes
   * nothing) when it cannot apply while running (`auth` added or removed) or its Redis cannot be reached.
   */
  async prepare(next: GatewayOptions, logger: LoggerOption | undefined): Promise<PreparedGateway> {
    if ((next.auth === undefined) !== (this.auth === undefined))
      throw new Error(`"auth" ${next.auth ? 'added' : 'removed'}: that takes a restart`);
    const made = await make(next, logger, this.made);
    return {
      commit: async () => {
        const before = this.made;
        this.made = made;
        this.install(made);
        if (before.policies !== made.policies) await before.policies.close();
        return changesOf(before.options, made.options);
      },
      discard: async () => {
        if (made.policies !== this.made.policies) await made.policies.close();
      },
    };
  }

  /** Closes what the policies opened (the Redis connection). */
  async close(): Promise<void> {
    await this.made.policies.close();
  }

  private install(made: Made): void {
    this.policies.replace(made.policies.middleware);
    const { redisReady } = made.policies;
    if (redisReady) this.readiness.redis = redisReady;
    else delete this.readiness.redis;
  }
}

/** Makes the parts of `options`; the policies of `running` stay (and keep their counts) when they did not change. */
async function make(options: GatewayOptions, logger: LoggerOption | undefined, running: Made | undefined) {
  const same = running !== undefined && JSON.stringify(running.options.policies) === JSON.stringify(options.policies);
  const policies = same ? running.policies : await gatewayMiddleware(options.policies, logger);
  const authenticator = options.auth && gatewayAuthenticator(options.auth, logger);
  return { options, policies, authenticator };
}

/** Which of the serving keys differ. */
function changesOf(before: GatewayOptions, after: GatewayOptions): string[] {
  const keys = [
    ['auth', 'auth'],
    ['policies', 'policies'],
    ['metricsToken', 'metrics'],
  ] as const;
  return keys.filter(([key]) => JSON.stringify(before[key]) !== JSON.stringify(after[key])).map(([, word]) => word);
}

/** An authenticator that asks the current one, whichever it is when a request arrives. */
class CurrentAuthenticator implements RequestAuthenticator {
  constructor(private readonly current: () => RequestAuthenticator) {}

  authenticate(headers: IncomingHttpHeaders): Promise<AuthOutcome> {
    return this.current().authenticate(headers);
  }
  serveMetadata(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    return this.current().serveMetadata(req, res, url);
  }
  insufficientScope(scopes: readonly string[]): AuthRefusal {
    return this.current().insufficientScope(scopes);
  }
}

/** Says who may call the gateway served as `serve`, and warns of an endpoint open beyond this machine. */
export function noteProtection(progress: Progress, options: GatewayOptions, serve: ServeMode): void {
  if (options.auth && serve.kind === 'http') progress.note(`callers need ${describeGatewayAuth(options.auth)}`);
  if (options.auth && serve.kind === 'stdio')
    progress.note('"auth" protects --http only: on stdio the caller is the parent process');
  if (serve.kind === 'http' && !options.auth && !isLoopback(serve.host ?? DEFAULT_HOST))
    progress.note(
      `warning: ${serve.host} is reachable from other machines and this endpoint has no authorization: set "auth" in the servers file, protect it otherwise (a firewall, a reverse proxy with authentication), or serve on 127.0.0.1`,
    );
}
