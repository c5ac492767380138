import type { Logger } from 'pino';
import type { SchedulerLike } from '../rx/rxjs';
import type { AnyMachineSnapshot } from 'xstate';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcResponse } from '../jsonrpc/message';
import type { Revision } from '../schema/revisions';
import type { SendOptions, Transport } from '../transport/transport';
import type { clientLifecycle } from './client-lifecycle.machine';
import type { ConnectionOptions, Role } from './connection-api';
import type { Correlator } from './correlator';
import type { Dispatcher, RequestHandler } from './dispatcher';
import type { LifecycleRunner } from './lifecycle-runner';
import type { serverLifecycle } from './server-lifecycle.machine';
import type { ModernPolicy } from './modern';

/** Sends the answer to one request (`null`: the request was cancelled, nothing is sent). */
export interface Replier {
  answer(response: JsonRpcResponse | null): void;
}

/** The lifecycle machine of either role, run by a `LifecycleRunner`. */
export type Lifecycle =
  LifecycleRunner<typeof serverLifecycle, ConnectionCore> | LifecycleRunner<typeof clientLifecycle, ConnectionCore>;

/**
 * What the parts of a connection (the inbound router, the client handshake) see of it. The
 * connection is one object with its methods on the prototype; its parts are plain functions over
 * this view, so splitting the code costs no memory per connection.
 */
export interface ConnectionCore extends Replier {
  readonly role: Role;
  readonly options: ConnectionOptions;
  readonly transport: Transport;
  readonly log: Logger;
  readonly traceEnabled: boolean;
  readonly correlator: Correlator;
  readonly dispatcher: Dispatcher;
  readonly lifecycle: Lifecycle;
  /** The handshake revisions we negotiate among. */
  readonly supported: readonly Revision[];
  /** Every revision we speak, for modern requests and the errors that list them. */
  readonly supportedAll: readonly string[];
  readonly modernPolicy: ModernPolicy;
  revision: Revision | undefined;
  peerCapabilities: Record<string, unknown> | undefined;
  peerInfo: Record<string, unknown> | undefined;
  instructions: string | undefined;
  requestMeta: Record<string, unknown> | undefined;
  readonly closed: boolean;
  readonly closeReason: string;
  // What the lifecycle's tags allow, refreshed on every transition.
  readonly acceptsInitialize: boolean;
  readonly acceptsPing: boolean;
  readonly acceptsRequests: boolean;
  readonly acceptsModern: boolean;
  readonly maySendInitialize: boolean;
  /** Sends the answer to a message that did not come in a batch. */
  answer(response: JsonRpcResponse | null): void;
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: SendOptions): void;
  notify(method: string, params?: Record<string, unknown>, options?: SendOptions): void;
  /** Feeds the lifecycle machine. */
  sendLifecycle(event: { readonly type: string } & Record<string, unknown>): void;
  /** The capabilities we declare, as they are now. */
  capabilities(): Record<string, unknown>;
  handlerFor(method: string): RequestHandler | undefined;
  /** Hands a valid notification from the peer to `onNotification` and `notifications$`. */
  deliverNotification(message: JsonRpcNotification): void;
  shutdown(reason: string, error?: Error): void;
  /** Where the lifecycle's scheduled events are timed. */
  readonly scheduler: SchedulerLike;
  /** Takes the lifecycle's tags after a transition (the runner calls it). */
  onLifecycle(snapshot: AnyMachineSnapshot): void;
}
