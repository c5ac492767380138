/** What every implementation under test offers the benchmark runner. */

/** A connected client/server pair (or a client of a server process) ready for calls. */
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

/** `http-2026`: stateless 2026-07-28 requests over Streamable HTTP (no session, `_meta` on each). */
export type CallTransport = 'in-memory' | 'stdio' | 'http-stateful' | 'http-stateless' | 'http-2026';

/** How a harness is set up beyond its transport. */
export interface ConnectOptions {
  /** Node options for a server process (stdio), before the script: `--cpu-prof` and the like. */
  readonly nodeArgs?: readonly string[];
}

export interface Implementation {
  readonly name: 'rxmcp' | 'official' | 'official-v2' | 'floor';
  /** The transports this implementation can be measured on. */
  readonly transports: readonly CallTransport[];
  connect(transport: CallTransport, options?: ConnectOptions): Promise<CallHarness>;
  /** Opens `count` idle connected sessions (client and server) in this process. */
  idleSessions?(count: number, protocolVersion?: '2025-11-25' | '2026-07-28'): Promise<{ close(): Promise<void> }>;
  fanOut?(clients: number): Promise<FanOutHarness>;
}

/** The text the large tool returns: 1 MiB of ASCII. */
export const LARGE_TEXT = 'x'.repeat(1024 * 1024);
