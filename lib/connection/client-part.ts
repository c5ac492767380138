/**
 * What a connection of the client role runs that a server's never does: its lifecycle machine,
 * the `initialize` handshake, entering a modern revision and the `_meta` of modern requests. The
 * connection finds them here rather than importing them, so that a server (and a server's bundle)
 * carries none of the client's code: `createConnection` registers them before it makes the first
 * client connection (see create-connection.ts).
 */
import { Observable } from '../rx/rxjs';
import type { DiscoveredServer } from './client-handshake';
import type { ConnectionCore } from './connection-core';
import type { ClientLifecycleMachine } from './lifecycle-machines';
import type { RequesterDeps } from './request-pipeline';

/** The client's part of a connection. */
export interface ClientPart {
  readonly machine: ClientLifecycleMachine;
  handshake(conn: ConnectionCore & RequesterDeps): Observable<Record<string, unknown>>;
  enterModern(conn: ConnectionCore, revision: string, server: DiscoveredServer): void;
  requestMeta(conn: ConnectionCore, revision: string): Record<string, unknown>;
}

/** Where the client's part comes from, once `createConnection` has said; and the part, once loaded. */
let loader: (() => ClientPart) | undefined;
let loaded: ClientPart | undefined;

/** Says where the client's part comes from; `createConnection` does before it makes a client connection. */
export function useClientPart(load: () => ClientPart): void {
  loader ??= load;
}

/** The client's part, for a connection of the client role: loaded when first asked for. */
export function clientPart(): ClientPart {
  if (loaded !== undefined) return loaded;
  if (loader === undefined) throw new Error('client connections are made with createConnection');
  return (loaded = loader());
}

/** `initialize()` on a connection of the server role: an Observable that fails when subscribed. */
export function serverInitializeRefusal(): Observable<Record<string, unknown>> {
  return new Observable((subscriber) => {
    subscriber.error(new Error('initialize() is for client connections; a server answers initialize'));
  });
}
