import { endWith, map, Observable, take, timer, VirtualTimeScheduler } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { ClientOptions, McpClient } from '../../lib/client/client';
import { progress } from '../../lib/connection/handler-events';
import { createServer } from '../../lib/server/server';
import type { McpServer, ServerOptions } from '../../lib/server/server';
import { linkedPair } from '../support/linked-pair';

/** A console-like logger that drops everything (the `broken` tool's failure is expected). */
const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

/** What the tools of `demoServer` saw, for assertions. */
export interface Seen {
  readonly echoArgs: unknown[];
  handlerRuns: number;
  brokenRuns: number;
  /** Set when the `hang` tool's work is torn down (the client cancelled). */
  hangTornDown: boolean;
}

/**
 * A server with `echo` (text back), `steps` (three progress events, then a result), `hang` (never
 * answers, records its teardown) and `broken` (throws).
 */
export function demoServer(options: Partial<ServerOptions> = {}): { server: McpServer; seen: Seen } {
  const seen: Seen = { echoArgs: [], handlerRuns: 0, brokenRuns: 0, hangTornDown: false };
  const server = createServer({ name: 'middleware-spec', version: '1.0.0', logger: quiet, ...options });
  server.tool({
    name: 'echo',
    description: 'echoes text',
    inputSchema: z.object({ text: z.string() }),
    handler: (args) => {
      seen.handlerRuns++;
      seen.echoArgs.push(args);
      return { content: [{ type: 'text', text: args.text }] };
    },
  });
  server.tool({
    name: 'steps',
    description: 'three steps',
    handler: () =>
      timer(0, 1).pipe(
        take(3),
        map((i) => progress(i + 1, 3)),
        endWith({ content: [{ type: 'text' as const, text: 'done' }] }),
      ),
  });
  server.tool({
    name: 'hang',
    description: 'never answers',
    handler: () =>
      new Observable<never>(() => () => {
        seen.hangTornDown = true;
      }),
  });
  server.tool({
    name: 'broken',
    description: 'throws',
    handler: () => {
      seen.brokenRuns++;
      throw new Error('secret detail');
    },
  });
  return { server, seen };
}

/** A client of `server` over a linked in-memory pair; the handshake era unless `protocolVersion` says otherwise. */
export async function clientOf(server: McpServer, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  const { client, server: serverSide } = linkedPair();
  server.connect(serverSide);
  return connect(client, { name: 'middleware-client', version: '1.0.0', protocolVersion: '2025-11-25', ...options });
}

/** A virtual clock for middleware that reads `scheduler.now()`: `advance(ms)` moves it. */
export function virtualClock(): { scheduler: VirtualTimeScheduler; advance(ms: number): void } {
  const scheduler = new VirtualTimeScheduler();
  return {
    scheduler,
    advance(ms) {
      scheduler.schedule(() => undefined, ms);
      scheduler.flush();
      // The next schedule() counts its delay from the new frame.
      scheduler.maxFrames = Infinity;
    },
  };
}

/** The text of a tool result's first content block. */
export function textOf(result: { content?: readonly unknown[] }): string {
  return (result.content?.[0] as { text: string }).text;
}
