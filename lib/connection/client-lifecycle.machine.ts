import { assign, setup } from 'xstate';

/** What a client lifecycle starts from. */
export interface ClientLifecycleInput {
  /** Revisions the client accepts in the server's answer. */
  readonly supported: readonly string[];
}

/** What the client knows once the server has answered initialize. */
export interface ClientLifecycleContext extends ClientLifecycleInput {
  readonly revision?: string;
  readonly serverCapabilities?: Record<string, unknown>;
  readonly serverInfo?: Record<string, unknown>;
  readonly instructions?: string;
  /** Why the lifecycle ended, once it has. */
  readonly closeReason?: string;
}

/** Events the connection feeds the client lifecycle, named origin first. */
export type ClientLifecycleEvent =
  | { readonly type: 'local.initialize' }
  | {
      readonly type: 'peer.initializeResult';
      readonly protocolVersion: string;
      readonly capabilities: Record<string, unknown>;
      readonly serverInfo: Record<string, unknown>;
      readonly instructions?: string;
    }
  | { readonly type: 'peer.initializeFailed'; readonly reason: string }
  /**
   * The client speaks a stateless revision (2026-07-28 on) with this server: no handshake; what
   * the server said of itself comes from `server/discover` when the client asked.
   */
  | {
      readonly type: 'local.stateless';
      readonly protocolVersion: string;
      readonly capabilities?: Record<string, unknown>;
      readonly serverInfo?: Record<string, unknown>;
      readonly instructions?: string;
    }
  | { readonly type: 'transport.closed'; readonly reason: string }
  | { readonly type: 'local.close'; readonly reason: string };

/**
 * The client half of the MCP lifecycle (spec: Basic → Lifecycle). Tags the connection reads:
 * - `may-send-initialize`: initialize has not been sent yet;
 * - `accepts-requests`: requests from the server other than ping are served;
 * - `may-send-requests`: the client may send requests other than initialize and ping;
 * - `stateless`: every request carries the revision, capabilities and client info in `_meta`
 *   (2026-07-28 on); the server sends no requests, so none are accepted;
 * - `closed`: nothing may be sent.
 * From `idle`, `local.stateless` skips the handshake: the client chose a stateless revision.
 * An answer with a revision outside `supported` ends the lifecycle with a reason saying so.
 */
export const clientLifecycle = setup({
  types: {
    input: {} as ClientLifecycleInput,
    context: {} as ClientLifecycleContext,
    events: {} as ClientLifecycleEvent,
  },
  actions: {
    recordServer: assign(({ event }) => {
      if (event.type !== 'peer.initializeResult' && event.type !== 'local.stateless') return {};
      return {
        revision: event.protocolVersion,
        serverCapabilities: event.capabilities,
        serverInfo: event.serverInfo,
        instructions: event.instructions,
      };
    }),
    recordUnsupported: assign(({ context, event }) =>
      event.type === 'peer.initializeResult' || event.type === 'local.stateless'
        ? {
            closeReason: `server answered protocol version ${JSON.stringify(event.protocolVersion)}, which this client does not support (supported: ${context.supported.join(', ')})`,
          }
        : {},
    ),
    recordClose: assign(({ event }) =>
      event.type === 'transport.closed' || event.type === 'local.close' || event.type === 'peer.initializeFailed'
        ? { closeReason: event.reason }
        : {},
    ),
  },
  guards: {
    supportedRevision: ({ context, event }) =>
      (event.type === 'peer.initializeResult' || event.type === 'local.stateless') &&
      context.supported.includes(event.protocolVersion),
  },
}).createMachine({
  id: 'clientLifecycle',
  context: ({ input }) => ({ ...input }),
  initial: 'initializing',
  on: {
    'transport.closed': { target: '.shutdown', actions: 'recordClose' },
    'local.close': { target: '.shutdown', actions: 'recordClose' },
  },
  states: {
    initializing: {
      initial: 'idle',
      states: {
        idle: {
          tags: ['may-send-initialize'],
          on: {
            'local.initialize': 'awaitingResult',
            'local.stateless': [
              { guard: 'supportedRevision', target: '#clientLifecycle.stateless', actions: 'recordServer' },
              { target: '#clientLifecycle.shutdown', actions: 'recordUnsupported' },
            ],
          },
        },
        awaitingResult: {
          on: {
            'peer.initializeResult': [
              { guard: 'supportedRevision', target: '#clientLifecycle.operating', actions: 'recordServer' },
              { target: '#clientLifecycle.shutdown', actions: 'recordUnsupported' },
            ],
            'peer.initializeFailed': { target: '#clientLifecycle.shutdown', actions: 'recordClose' },
          },
        },
      },
    },
    operating: { tags: ['accepts-requests', 'may-send-requests'] },
    stateless: { tags: ['may-send-requests', 'stateless'] },
    shutdown: { type: 'final', tags: ['closed'] },
  },
});
