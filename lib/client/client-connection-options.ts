import type { Logger } from 'pino';
import type { SchedulerLike } from '../rx/rxjs';
import type { ConnectionOptions } from '../connection/connection-api';
import type { OutboundHook } from '../connection/request-pipeline';
import type { JsonRpcNotification } from '../jsonrpc/message';
import type { Revision } from '../schema/revisions';
import type { Transport } from '../transport/transport';
import type { LifecycleInspector } from '../base/inspection';
import type { ClientOptions } from './client-api';
import type { Client } from './mcp-client';

/** The capabilities of a client that declares none: one object for every such client. */
const NO_CAPABILITIES: Record<string, unknown> = Object.freeze({});

/**
 * The options of a client's connection, as one small object: what it shares with the client's
 * options is read from them, and its hooks are methods rather than closures (an idle client
 * should cost little; see benchmarks/results/ANALYSIS.md). It is also where the client is found
 * once it exists: notifications reach it from then on.
 */
export class ClientConnectionOptions implements ConnectionOptions {
  readonly role = 'client';
  /** Set once `connect` has made the client. */
  client: Client | undefined = undefined;
  private readonly declared: Record<string, unknown>;

  constructor(
    readonly transport: Transport,
    readonly info: { readonly name: string; readonly version: string } & Record<string, unknown>,
    declared: Record<string, unknown>,
    readonly protocolVersion: Revision | undefined,
    /** Modern results may be `input_required`: the client checks them once complete. */
    readonly validateResults: boolean,
    readonly logger: Logger,
    readonly outbound: OutboundHook | undefined,
    private readonly given: ClientOptions,
  ) {
    this.declared = Object.keys(declared).length === 0 ? NO_CAPABILITIES : declared;
  }

  // Left out when not given: the connection's own default is the same list, its handshake part made once.
  get supportedRevisions(): readonly string[] | undefined {
    return this.given.supportedRevisions;
  }

  get requestTimeoutMs(): number | undefined {
    return this.given.requestTimeoutMs;
  }

  get enforcePeerCapabilities(): boolean {
    return this.given.enforceServerCapabilities ?? false;
  }

  get scheduler(): SchedulerLike | undefined {
    return this.given.scheduler;
  }

  get inspect(): LifecycleInspector | undefined {
    return this.given.inspect;
  }

  capabilities(): Record<string, unknown> {
    return this.declared;
  }

  onNotification(message: JsonRpcNotification): void {
    this.client?.onNotification(message);
  }
}
