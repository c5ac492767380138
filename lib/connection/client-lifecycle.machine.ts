import { assign, setup } from 'xstate';
import { isModernRevision, isLegacyRevision } from '../schema/revisions';

/** What a client lifecycle starts from. */
export interface ClientLifecycleInput {
  /**
   * Revisions the client speaks: the handshake ones it accepts in the server's answer to
   * initialize, and the modern ones it may choose with `local.modern`.
   */
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
  /** The client sent `notifications/initialized`: normal operation begins. */
  | { readonly type: 'local.initialized' }
  /**
   * The client speaks a modern revision (2026-07-28 on) with this server: no handshake; what
   * the server said of itself comes from `server/discover` when the client asked.
   */
  | {
      readonly type: 'local.modern';
      readonly protocolVersion: string;
      readonly capabilities?: Record<string, unknown>;
      readonly serverInfo?: Record<string, unknown>;
      readonly instructions?: string;
    }
  | { readonly type: 'transport.closed'; readonly reason: string }
  | { readonly type: 'local.close'; readonly reason: string };

/**
 * The client half of the MCP lifecycle (spec: Basic → Lifecycle). Every rule of when the client
 * may do what is here; the connection reads the tags:
 * - `may-send-initialize`: initialize has not been sent yet;
 * - `accepts-requests`: requests from the server other than ping are served;
 * - `may-send-requests`: the client may send requests other than initialize and ping;
 * - `accepts-ping`, `may-send-ping`: ping, in either direction, at any time before shutdown;
 * - `modern`: every request carries the revision, capabilities and client info in `_meta`
 *   (2026-07-28 on); the server sends no requests, so none are accepted;
 * - `closed`: nothing may be sent.
 *
 * The server's answer to initialize is accepted when it names a handshake revision the client
 * speaks, and the client then sends `notifications/initialized` (`confirming`) before it operates;
 * any other answer ends the lifecycle with a reason saying so (Lifecycle → Version Negotiation).
 * From `idle`, `local.modern` skips the handshake for a modern revision the client speaks;
 * for any other revision it changes nothing (the caller is told, and may still initialize).
 */
export const clientLifecycle = setup({
  types: {
    input: {} as ClientLifecycleInput,
    context: {} as ClientLifecycleContext,
    events: {} as ClientLifecycleEvent,
  },
  actions: {
    recordServer: assign(({ event }) => {
      if (event.type !== 'peer.initializeResult' && event.type !== 'local.modern') return {};
      return {
        revision: event.protocolVersion,
        serverCapabilities: event.capabilities,
        serverInfo: event.serverInfo,
        instructions: event.instructions,
      };
    }),
    recordUnsupported: assign(({ context, event }) =>
      event.type === 'peer.initializeResult'
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
    supportedHandshakeRevision: ({ context, event }) =>
      event.type === 'peer.initializeResult' &&
      isLegacyRevision(event.protocolVersion) &&
      context.supported.includes(event.protocolVersion),
    supportedModernRevision: ({ context, event }) =>
      event.type === 'local.modern' &&
      isModernRevision(event.protocolVersion) &&
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
          tags: ['may-send-initialize', 'accepts-ping', 'may-send-ping'],
          on: {
            'local.initialize': 'awaitingResult',
            'local.modern': {
              guard: 'supportedModernRevision',
              target: '#clientLifecycle.modern',
              actions: 'recordServer',
            },
          },
        },
        awaitingResult: {
          tags: ['accepts-ping', 'may-send-ping'],
          on: {
            'peer.initializeResult': [
              { guard: 'supportedHandshakeRevision', target: 'confirming', actions: 'recordServer' },
              { target: '#clientLifecycle.shutdown', actions: 'recordUnsupported' },
            ],
            'peer.initializeFailed': { target: '#clientLifecycle.shutdown', actions: 'recordClose' },
          },
        },
        // The answer is taken; the client now sends notifications/initialized.
        confirming: {
          tags: ['accepts-ping', 'may-send-ping'],
          on: { 'local.initialized': '#clientLifecycle.operating' },
        },
      },
    },
    operating: { tags: ['accepts-requests', 'may-send-requests', 'accepts-ping', 'may-send-ping'] },
    modern: { tags: ['may-send-requests', 'modern', 'accepts-ping', 'may-send-ping'] },
    shutdown: { type: 'final', tags: ['closed'] },
  },
});
