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

let registered: ClientPart | undefined;

/** Registers the client's part; `createConnection` does before it makes a client connection. */
export function useClientPart(part: ClientPart): void {
  registered = part;
}

/** The client's part, for a connection of the client role. */
export function clientPart(): ClientPart {
  if (registered === undefined) throw new Error('client connections are made with createConnection');
  return registered;
}

/** `initialize()` on a connection of the server role: an Observable that fails when subscribed. */
export function serverInitializeRefusal(): Observable<Record<string, unknown>> {
  return new Observable((subscriber) => {
    subscriber.error(new Error('initialize() is for client connections; a server answers initialize'));
  });
}
