/**
 * The parts a server definition is built from: its registries, the request handlers its sessions
 * share, what each session is started with, and how registry changes reach the sessions.
 */
import type { Logger } from 'pino';
import type { RequestHandler } from '../connection/dispatcher';
import { DEFAULT_CACHE_HINTS } from '../connection/modern';
import { stderrWarnLogger } from '../base/logger';
import { compileJsonSchema } from '../validation/json-schema-validator';
import type { FailurePolicy } from './handler-failures';
import { createPromptRegistry } from './prompt-registry';
import { DEFAULT_PAGE_SIZE } from './registry';
import { createRequestHandlers } from './request-handlers';
import { DefinitionParts } from './definition-parts';
import type { CapabilitySources, Registries } from './definition-parts';
import { createResourceRegistry } from './resource-registry';
import type * as TasksSetup from './tasks/task-setup';
import type { ServerSessions, SessionConfig } from './server-sessions';
import type { ServerOptions } from './server-options';
import { createToolRegistry } from './tool-registry';

/** The default of `maxSubscriptionsPerSession`. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 1000;

export type { CapabilitySources, Registries } from './definition-parts';

export function createRegistries(options: ServerOptions, logger: Logger, failures: FailurePolicy): Registries {
  // One options object for the three registries: each reads the fields it needs of it.
  const shared = {
    jsonSchemaValidator: options.jsonSchemaValidator ?? compileJsonSchema,
    validateResults: options.validateResults ?? true,
    logger,
    failures,
    readCacheHint: options.cacheHints?.['resources/read'] ?? DEFAULT_CACHE_HINTS['resources/read'],
  };
  return {
    tools: createToolRegistry(shared),
    resources: createResourceRegistry(shared),
    prompts: createPromptRegistry(shared),
  };
}

/** Handler failures go to the server's logger, or to stderr at warn when it has none. */
export function failurePolicyOf(options: ServerOptions, logger: Logger): FailurePolicy {
  const hide = options.hideErrorMessages ?? false;
  return options.logger === undefined ? new StderrFailures(options.name, hide) : { log: logger, hide };
}

/** Failures logged to stderr: the child logger is made at the first failure, not per definition. */
class StderrFailures implements FailurePolicy {
  private logger: Logger | undefined;

  constructor(
    private readonly server: string,
    readonly hide: boolean,
  ) {}

  get log(): Logger {
    return (this.logger ??= stderrWarnLogger().child({ component: 'server', server: this.server }));
  }
}

/** Every registry change becomes the matching `list_changed` notification to the sessions told `listChanged`. */
export function announceListChanges({ tools, resources, prompts }: Registries, sessions: ServerSessions): void {
  tools.onChange = sessions;
  prompts.onChange = sessions;
  resources.onChange = sessions;
}

/** The request handlers of a definition, and the parts they find through their owner. */
export interface DefinitionHandlers {
  /** A record made for this definition alone: its middleware stack takes it as its own. */
  readonly handlers: Record<string, RequestHandler>;
  readonly parts: DefinitionParts;
}

/**
 * The request handlers every session shares, and the parts they work with: each handler finds the
 * parts, and its session, as its owner (a session, or the modern endpoint's stand-in).
 */
export function sharedHandlers(
  options: ServerOptions,
  sources: CapabilitySources,
  logger: Logger,
  failures: FailurePolicy,
): DefinitionHandlers {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
  const maxSubscriptions = options.maxSubscriptionsPerSession ?? DEFAULT_MAX_SUBSCRIPTIONS;
  const parts = new DefinitionParts(sources, pageSize, maxSubscriptions, logger, failures, options);
  const handlers = createRequestHandlers();
  if (!options.tasks) return { handlers, parts };
  const tasks = options.tasks === true ? {} : options.tasks;
  // A server's tasks (their runner, store and handlers) are loaded by the first server that has them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { handlersWithTasks } = require('./tasks/task-setup') as typeof TasksSetup;
  const withTasks = handlersWithTasks(handlers, tasks, {
    tools: sources.tools,
    sealer: parts.sealer,
    scheduler: options.scheduler,
    logger,
    pageSize,
    closing: parts.closing,
  });
  return { handlers: withTasks, parts };
}

/**
 * What every session of the definition is started with, from the server's options: one literal,
 * so that every definition's config shares one hidden class (a spread into a literal with more
 * properties gives each object a class of its own, a few hundred bytes per server made).
 */
export function sessionConfig(
  options: ServerOptions,
  parts: Pick<SessionConfig, 'info' | 'handlers' | 'handlerParts' | 'logger'>,
): SessionConfig {
  return {
    info: parts.info,
    handlers: parts.handlers,
    handlerParts: parts.handlerParts,
    logger: parts.logger,
    instructions: options.instructions,
    supportedRevisions: options.supportedRevisions,
    cacheHints: options.cacheHints,
    requestTimeoutMs: options.requestTimeoutMs,
    initializeTimeoutMs: options.initializeTimeoutMs,
    defaultLogLevel: options.defaultLogLevel ?? 'debug',
    scheduler: options.scheduler,
    inspect: options.inspect,
  };
}
