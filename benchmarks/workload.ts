/** What every implementation under test offers the benchmark runner. */

/**
 * A connected client/server pair in memory, or a client of a server in a child process (every
 * other transport), ready for calls.
 */
export interface CallHarness {
  /** Calls the trivial tool once. */
  call(): Promise<unknown>;
  /** Calls the tool that returns 1 MB of text. */
  callLarge(): Promise<unknown>;
  close(): Promise<void>;
}

/** One server with many subscribed clients, for the fan-out workload. */
export interface FanOutHarness {
  /** Publishes `updates` resource updates and resolves once every client has received all of them. */
  publish(updates: number): Promise<void>;
  close(): Promise<void>;
}

/** How idle sessions are opened (see {@link Implementation.idleSessions}). */
export interface IdleOptions {
  readonly server: 'perClient' | 'shared';
  readonly protocolVersion?: '2025-11-25' | '2026-07-28';
}

/** `http-2026`: stateless 2026-07-28 requests over Streamable HTTP (no session, `_meta` on each). */
export type CallTransport = 'in-memory' | 'stdio' | 'http-stateful' | 'http-stateless' | 'http-2026';

/** How a harness is set up beyond its transport. */
export interface ConnectOptions {
  /** Node options for the server process (every transport but in-memory): `--cpu-prof` and the like. */
  readonly nodeArgs?: readonly string[];
}

export interface Implementation {
  readonly name: 'rxmcp' | 'official' | 'official-v2' | 'floor';
  /** The transports this implementation can be measured on. */
  readonly transports: readonly CallTransport[];
  connect(transport: CallTransport, options?: ConnectOptions): Promise<CallHarness>;
  /**
   * Opens `count` idle connected sessions (client and server) in this process, in memory: with
   * `server: 'perClient'` each client has a server built for it from the definition (as users of an
   * SDK that binds a server object to one transport write it), with `'shared'` one server definition
   * serves them all (where the implementation can).
   */
  idleSessions?(count: number, options: IdleOptions): Promise<{ close(): Promise<void> }>;
  /**
   * `count` client sessions of one server process over `transport` (an HTTP one); `call` goes to
   * each session in turn, so with `count` calls in flight each session has about one.
   */
  sessions?(transport: CallTransport, count: number): Promise<CallHarness>;
  fanOut?(clients: number): Promise<FanOutHarness>;
}

/** The text the large tool returns: 1 MiB of ASCII. */
export const LARGE_TEXT = 'x'.repeat(1024 * 1024);
