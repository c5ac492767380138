/**
 * The two lifecycle machines, each built when a connection of its role first needs it: a server
 * process never builds the client's machine, a client process never builds the server's (building
 * one at load takes 1 to 2 ms of a process's start).
 */
import type * as ClientMachineModule from './client-lifecycle.machine';
import type * as ServerMachineModule from './server-lifecycle.machine';

export type ClientLifecycleMachine = typeof ClientMachineModule.clientLifecycle;
export type ServerLifecycleMachine = typeof ServerMachineModule.serverLifecycle;

let client: ClientLifecycleMachine | undefined;
let server: ServerLifecycleMachine | undefined;

/* eslint-disable @typescript-eslint/no-require-imports */
export function clientLifecycleMachine(): ClientLifecycleMachine {
  client ??= (require('./client-lifecycle.machine') as typeof ClientMachineModule).clientLifecycle;
  return client;
}

export function serverLifecycleMachine(): ServerLifecycleMachine {
  server ??= (require('./server-lifecycle.machine') as typeof ServerMachineModule).serverLifecycle;
  return server;
}
/* eslint-enable @typescript-eslint/no-require-imports */
