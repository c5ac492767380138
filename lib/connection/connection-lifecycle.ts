import type { AnyMachineSnapshot } from 'xstate';
import { clientLifecycle } from './client-lifecycle.machine';
import { DEFAULT_INITIALIZE_TIMEOUT_MS } from './connection-api';
import type { ConnectionOptions } from './connection-api';
import type { ConnectionCore, Lifecycle } from './connection-core';
import { LifecycleRunner } from './lifecycle-runner';
import { serverLifecycle } from './server-lifecycle.machine';

function onRunnerTransition(snapshot: AnyMachineSnapshot, owner: unknown): void {
  (owner as ConnectionCore).onLifecycle(snapshot);
}

/** The runner options of every connection that neither inspects nor restores: one object for all. */
const PLAIN_RUNNER_OPTIONS = { onTransition: onRunnerTransition };

/** The lifecycle machine of the connection's role, run on its scheduler. */
export function createLifecycle(connection: ConnectionCore, options: ConnectionOptions): Lifecycle {
  const runnerOptions =
    options.inspect === undefined && options.snapshot === undefined
      ? PLAIN_RUNNER_OPTIONS
      : { onTransition: onRunnerTransition, inspect: options.inspect, snapshot: options.snapshot };
  const scheduler = connection.scheduler;
  if (options.role === 'client') {
    return new LifecycleRunner(
      clientLifecycle,
      { supported: connection.supportedAll },
      scheduler,
      runnerOptions,
      connection,
    );
  }
  const input = {
    supported: connection.supported,
    initializeTimeoutMs: options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
  };
  return new LifecycleRunner(serverLifecycle, input, scheduler, runnerOptions, connection);
}
