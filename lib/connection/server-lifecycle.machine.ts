import { assign, setup } from 'xstate';

/** What a server lifecycle starts from. */
export interface ServerLifecycleInput {
  /** Revisions the server speaks, oldest first; the last one is its latest. */
  readonly supported: readonly string[];
  /** Shut down when no initialize arrives within this time; `Infinity` waits for ever. */
  readonly initializeTimeoutMs: number;
}

/** What the server knows about the session once the client has introduced itself. */
export interface ServerLifecycleContext extends ServerLifecycleInput {
  /** The negotiated revision, set when initialize arrives. */
  readonly revision?: string;
  /** The revision the client asked for (which may differ from `revision`). */
  readonly requestedRevision?: string;
  readonly clientCapabilities?: Record<string, unknown>;
  readonly clientInfo?: Record<string, unknown>;
  /** Why the lifecycle ended, once it has. */
  readonly closeReason?: string;
}

/** Events the connection feeds the server lifecycle, named origin first. */
export type ServerLifecycleEvent =
  | {
      readonly type: 'peer.initialize';
      readonly protocolVersion: string;
      readonly capabilities: Record<string, unknown>;
      readonly clientInfo: Record<string, unknown>;
    }
  | { readonly type: 'peer.initialized' }
  /** A request of a modern revision (2026-07-28 on), which carries its revision in `_meta`. */
  | { readonly type: 'peer.modernRequest'; readonly protocolVersion: string }
  | { readonly type: 'transport.closed'; readonly reason: string }
  | { readonly type: 'local.close'; readonly reason: string };

const awaitingInitialize = {
  tags: ['accepts-initialize', 'accepts-ping', 'may-send-ping'],
  on: {
    'peer.initialize': { target: 'awaitingInitialized', actions: 'negotiate' },
    'peer.modernRequest': '#serverLifecycle.modern',
  },
} as const;

/**
 * The server half of the MCP lifecycle (spec: Basic → Lifecycle). It only decides; the connection
 * reads its tags before it serves or sends anything:
 * - `accepts-initialize`: an initialize request is expected now;
 * - `accepts-requests`: requests other than initialize and ping may be served (from the moment
 *   initialize was answered: over HTTP a request can overtake the initialized notification);
 * - `may-send-requests`: the server may send requests other than ping (after `initialized`);
 * - `accepts-ping`, `may-send-ping`: ping, in either direction, at any time before shutdown (spec:
 *   Basic → Lifecycle, Utilities → Ping);
 * - `accepts-modern-requests`: requests of a modern revision (2026-07-28: no handshake, each
 *   request names its revision, client capabilities and client info in `_meta`) are served, each on
 *   its own; the server sends no requests of its own;
 * - `closed`: nothing may be sent.
 *
 * Two families share the machine (spec 2026-07-28: Versioning → Backward Compatibility): the
 * connection's first message chooses. `initialize` leads through `awaitingInitialized` to
 * `operating`, a session of a handshake revision; a modern request leads to `modern`, where
 * no session is held and no initialize deadline runs. A client that probed with a modern
 * request may still open a session afterwards, so `modern` accepts `initialize` too.
 */
export const serverLifecycle = setup({
  types: {
    input: {} as ServerLifecycleInput,
    context: {} as ServerLifecycleContext,
    events: {} as ServerLifecycleEvent,
  },
  actions: {
    negotiate: assign(({ context, event }) => {
      if (event.type !== 'peer.initialize') return {};
      // Lifecycle → Version Negotiation: answer with the client's version when supported, else our latest.
      const supported = context.supported.includes(event.protocolVersion);
      return {
        revision: supported ? event.protocolVersion : context.supported.at(-1),
        requestedRevision: event.protocolVersion,
        clientCapabilities: event.capabilities,
        clientInfo: event.clientInfo,
      };
    }),
    recordClose: assign(({ event }) =>
      event.type === 'transport.closed' || event.type === 'local.close' ? { closeReason: event.reason } : {},
    ),
    recordTimeout: assign({ closeReason: 'no initialize request arrived in time' }),
  },
  delays: {
    initializeTimeout: ({ context }) => context.initializeTimeoutMs,
  },
  guards: {
    waitsForInitialize: ({ context }) => Number.isFinite(context.initializeTimeoutMs),
  },
}).createMachine({
  id: 'serverLifecycle',
  context: ({ input }) => ({ ...input }),
  initial: 'initializing',
  on: {
    'transport.closed': { target: '.shutdown', actions: 'recordClose' },
    'local.close': { target: '.shutdown', actions: 'recordClose' },
  },
  states: {
    initializing: {
      initial: 'starting',
      states: {
        // A timer only when there is a deadline: a non-finite delay must never reach a clock.
        starting: {
          always: [
            { guard: 'waitsForInitialize', target: 'awaitingInitialize' },
            { target: 'awaitingInitializeUntimed' },
          ],
        },
        awaitingInitialize: {
          ...awaitingInitialize,
          after: {
            initializeTimeout: { target: '#serverLifecycle.shutdown', actions: 'recordTimeout' },
          },
        },
        awaitingInitializeUntimed: awaitingInitialize,
        awaitingInitialized: {
          tags: ['accepts-requests', 'accepts-ping', 'may-send-ping'],
          on: { 'peer.initialized': '#serverLifecycle.operating' },
        },
      },
    },
    modern: {
      tags: ['accepts-modern-requests', 'accepts-initialize', 'accepts-ping', 'may-send-ping'],
      on: {
        'peer.initialize': { target: '#serverLifecycle.initializing.awaitingInitialized', actions: 'negotiate' },
        'peer.modernRequest': {},
      },
    },
    operating: {
      tags: ['accepts-requests', 'may-send-requests', 'accepts-ping', 'may-send-ping'],
      // A repeated initialized notification is harmless; swallow it here.
      on: { 'peer.initialized': {} },
    },
    shutdown: { type: 'final', tags: ['closed'] },
  },
});
