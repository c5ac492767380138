import type { AnyMachineSnapshot } from 'xstate';
import { DEFAULT_INITIALIZE_TIMEOUT_MS } from './connection-api';
import type { ConnectionOptions } from './connection-api';
import type { ConnectionCore, Lifecycle } from './connection-core';
import { serverLifecycleMachine } from './lifecycle-machines';
import { clientPart } from './client-part';
import { LifecycleRunner } from './lifecycle-runner';
import type { ServerLifecycleInput } from './server-lifecycle.machine';
import type { SchedulerLike } from '../rx/rxjs';
import type { ImpliedInitialize } from '../transport/transport';
import type { Revision } from '../schema/revisions';

function onRunnerTransition(snapshot: AnyMachineSnapshot, owner: ConnectionCore | undefined): void {
  owner?.onLifecycle(snapshot);
}

/** An action of the machine threw: the machine is in status error, and the connection closes. */
function onRunnerError(error: unknown, connection: ConnectionCore | undefined): void {
  if (connection === undefined) throw error;
  connection.log.error({ err: error }, 'lifecycle machine failed');
  connection.shutdown('the lifecycle machine failed', error instanceof Error ? error : new Error(String(error)));
}

/**
 * The runner options of every connection that neither inspects nor restores: one object for all.
 * Both lifecycle machines are pure, so connections that open alike share their snapshots.
 */
const PLAIN_RUNNER_OPTIONS = { onTransition: onRunnerTransition, onError: onRunnerError, sharesSteps: true };

/** Persisted lifecycles of sessions initialized as their transport implies, by initialize, then input. */
const impliedLifecycles = new WeakMap<ImpliedInitialize, Map<string, unknown>>();

/**
 * The persisted lifecycle of a server session that is operating as if `implied` had been its
 * initialize (see `Transport.impliedInitialize`): the machine run once through initialize and
 * initialized, then restored for every such session. A modern POST of a handshake revision then
 * costs no handshake: no initialize request is parsed, answered or thrown away.
 */
function impliedLifecycle(input: ServerLifecycleInput, implied: ImpliedInitialize, scheduler: SchedulerLike): unknown {
  let byInput = impliedLifecycles.get(implied);
  if (byInput === undefined) impliedLifecycles.set(implied, (byInput = new Map()));
  const key = `${input.initializeTimeoutMs} ${input.supported.join(' ')}`;
  let persisted = byInput.get(key);
  if (persisted === undefined) {
    const runner = new LifecycleRunner(serverLifecycleMachine(), input, scheduler);
    runner.send({ type: 'peer.initialize', ...implied });
    runner.send({ type: 'peer.initialized' });
    persisted = runner.getPersistedSnapshot();
    runner.stop();
    // Bounded, whatever the inputs a caller makes.
    if (byInput.size < 16) byInput.set(key, persisted);
  }
  return persisted;
}

/** The initialize a server session is taken to have opened with, when it is not restored from a snapshot. */
function impliedOf(options: ConnectionOptions): ImpliedInitialize | undefined {
  return options.role === 'server' && options.snapshot === undefined ? options.transport.impliedInitialize : undefined;
}

/** The lifecycle machine of the connection's role, run on its scheduler. */
export function createLifecycle(connection: ConnectionCore, options: ConnectionOptions): Lifecycle {
  const scheduler = connection.scheduler;
  const input = {
    supported: connection.supported,
    initializeTimeoutMs: options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
  };
  const implied = impliedOf(options);
  const snapshot = implied === undefined ? options.snapshot : impliedLifecycle(input, implied, scheduler);
  const runnerOptions =
    options.inspect === undefined && snapshot === undefined
      ? PLAIN_RUNNER_OPTIONS
      : {
          onTransition: onRunnerTransition,
          onError: onRunnerError,
          inspect: options.inspect,
          snapshot,
          sharesSteps: true,
        };
  if (options.role === 'client') {
    return new LifecycleRunner(
      clientPart().machine,
      { supported: connection.supportedAll },
      scheduler,
      runnerOptions,
      connection,
    );
  }
  return new LifecycleRunner(serverLifecycleMachine(), input, scheduler, runnerOptions, connection);
}

/** The peer as either lifecycle machine records it in its context. */
interface PeerContext {
  readonly revision?: Revision;
  readonly clientCapabilities?: Record<string, unknown>;
  readonly clientInfo?: Record<string, unknown>;
  readonly serverCapabilities?: Record<string, unknown>;
  readonly serverInfo?: Record<string, unknown>;
  readonly instructions?: string;
}

/**
 * Takes what the lifecycle knows of the peer after a step (or a restore): the negotiated revision
 * and the peer's declarations. The only place the connection's copies of them are written, so
 * they always say what the machine decided. A new revision is handed to the transport (HTTP sends
 * it as a header), and a client in a modern revision gets the `_meta` its requests carry.
 */
export function adoptLifecycleContext(conn: ConnectionCore, snapshot: AnyMachineSnapshot): void {
  const context = snapshot.context as PeerContext;
  const revision = context.revision;
  if (conn.role === 'server') {
    conn.peerCapabilities = context.clientCapabilities;
    conn.peerInfo = context.clientInfo;
  } else {
    conn.peerCapabilities = context.serverCapabilities;
    conn.peerInfo = context.serverInfo;
    conn.instructions = context.instructions;
  }
  if (revision === conn.revision) return;
  conn.revision = revision;
  if (revision === undefined) return;
  if (conn.role === 'client' && snapshot.hasTag('modern')) conn.requestMeta = clientPart().requestMeta(conn, revision);
  conn.transport.setProtocolVersion?.(revision);
}
