/**
 * The two lifecycle machines' types, and the server's machine, built when a server connection first
 * needs it: a client process never builds it (building one at load takes 1 to 2 ms of a process's
 * start). The client's machine comes with the client's part of a connection (client-part.ts).
 */
import type * as ClientMachineModule from './client-lifecycle.machine';
import type * as ServerMachineModule from './server-lifecycle.machine';

export type ClientLifecycleMachine = typeof ClientMachineModule.clientLifecycle;
export type ServerLifecycleMachine = typeof ServerMachineModule.serverLifecycle;

let server: ServerLifecycleMachine | undefined;

/* eslint-disable @typescript-eslint/no-require-imports */
export function serverLifecycleMachine(): ServerLifecycleMachine {
  server ??= (require('./server-lifecycle.machine') as typeof ServerMachineModule).serverLifecycle;
  return server;
}
/* eslint-enable @typescript-eslint/no-require-imports */
