/**
 * The parts a server definition's request handlers work with, as one object per definition: what
 * most definitions never use (the streams `subscriptions/listen` follows, its quota, the sealer of
 * `requestState`) is made on first use, and what the handlers call is a method rather than a
 * closure (a definition built per client should cost little; see benchmarks/results/ANALYSIS.md).
 */
import type { Logger } from 'pino';
import { Subject } from '../rx/rxjs';
import type { HandlerOutput, HandlerResult, RequestContext } from '../connection/dispatcher';
import type { FailurePolicy } from './handler-failures';
import type { HandlerParts } from './handler-parts';
import type { ListenedList } from './extension-lists';
import { ListenQuota } from './listen';
import { contextOf, runWithInput } from './request-contexts';
import { watchResource } from './request-handlers';
import { RequestStateSealer } from './request-state';
import { sharedCapabilities } from './server-capabilities';
import type { DerivedCapabilities } from './server-capabilities';
import type { ServerCapabilities } from '../schema/lifecycle';
import type { PromptRegistry } from './prompt-registry';
import type { ResourceRegistry } from './resource-registry';
import type { ToolRegistry } from './tool-registry';
import type { ServerContext } from './server-context';
import type { ServerOptions } from './server-options';
import type { Session } from './session';

/** The registries of a server definition. */
export interface Registries {
  readonly tools: ToolRegistry;
  readonly resources: ResourceRegistry;
  readonly prompts: PromptRegistry;
}

/** What a definition's capabilities are derived from, and the ones last derived. */
export interface CapabilitySources extends Registries, DerivedCapabilities {
  completers: number;
  readonly logging: boolean;
  readonly given: ServerCapabilities | undefined;
  /** Made when the first extension is served. */
  extensions: Record<string, Record<string, unknown>> | undefined;
}

/** The default of `maxListenStreamsPerPrincipal`. */
const DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL = 100;

export class DefinitionParts implements HandlerParts {
  /** Made when the first extension with a changing list is served. */
  extensionLists: ListenedList[] | undefined = undefined;
  private updatesMade: Subject<string> | undefined = undefined;
  private closingMade: Subject<void> | undefined = undefined;
  private quota: ListenQuota | undefined = undefined;
  private sealerMade: RequestStateSealer | undefined = undefined;

  constructor(
    /** The registries, and what the capabilities are derived from. */
    private readonly sources: CapabilitySources,
    readonly pageSize: number,
    readonly maxSubscriptions: number,
    readonly logger: Logger,
    readonly failures: FailurePolicy,
    /** The server's options: the quota's bound, the sealer's options and the scheduler are read from them on first use. */
    private readonly options: ServerOptions,
  ) {}

  get tools(): ToolRegistry {
    return this.sources.tools;
  }

  get resources(): ResourceRegistry {
    return this.sources.resources;
  }

  get prompts(): PromptRegistry {
    return this.sources.prompts;
  }

  /** The capabilities a session started now declares (one object, shared until they change). */
  capabilities(): Record<string, unknown> {
    return sharedCapabilities(this.sources) as Record<string, unknown>;
  }

  /** URIs named by `resourceUpdated`, for the `subscriptions/listen` streams. */
  get updates(): Subject<string> {
    return (this.updatesMade ??= new Subject<string>());
  }

  /** Emits when the server closes: the listen streams (and the tasks) end gracefully. */
  get closing(): Subject<void> {
    return (this.closingMade ??= new Subject<void>());
  }

  get listenQuota(): ListenQuota {
    return (this.quota ??= new ListenQuota(
      this.options.maxListenStreamsPerPrincipal ?? DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL,
    ));
  }

  /** Seals and opens the `requestState` of multi round-trip requests. */
  get sealer(): RequestStateSealer {
    return (this.sealerMade ??= new RequestStateSealer(this.options.requestState));
  }

  /** Tells the listen streams that follow `uri`, if any stream was ever opened. */
  resourceUpdated(uri: string): void {
    this.updatesMade?.next(uri);
  }

  /** Ends the listen streams, and the tasks, of a closing server. */
  close(): void {
    this.closingMade?.next();
  }

  withSession(context: RequestContext, session: unknown): ServerContext {
    return contextOf(context, session);
  }

  withInput(
    params: Record<string, unknown>,
    context: RequestContext,
    session: unknown,
    work: (context: ServerContext) => HandlerOutput<HandlerResult>,
  ): HandlerOutput<HandlerResult> {
    return runWithInput(this, this.options.scheduler, params, context, session, work);
  }

  /** Starts a session's watch of a resource (a resumed session's subscriptions). */
  watchFor(session: Session, uri: string): void {
    watchResource(session, uri, this.sources.resources, this.logger);
  }
}
