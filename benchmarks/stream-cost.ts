/**
 * Streaming a tool's output (issue #43): one `tools/call` whose Observable handler emits 1,000
 * chunks before its result, in memory, delivered as partial results (`notifications/tools/
 * partial_result`, to a client that declared the extension) against the same tool sending its
 * chunks as progress messages (`notifications/progress`). Measured: chunks per second over the
 * whole call, and the time from the call to its first chunk.
 */
import { lastValueFrom, range, concat, of, map, tap } from 'rxjs';
import { performance } from 'node:perf_hooks';
import { connect } from '../lib/entries/client';
import type { McpClient } from '../lib/entries/client';
import { createInMemoryPair, createServer, partialResult, partialResults, progress } from '../lib/entries/server';
import type { McpServer } from '../lib/entries/server';

/** Chunks per call. */
export const STREAM_CHUNKS = 1_000;

/** How the chunks travel. */
export type StreamSide = 'partial' | 'progress';

/** What one streamed call measured. */
export interface StreamTiming {
  readonly chunksPerSecond: number;
  readonly firstChunkMs: number;
}

function streamServer(): McpServer {
  const server = createServer({
    name: 'bench-stream',
    version: '1.0.0',
    logging: false,
    extensions: [partialResults()],
  });
  server.tool({
    name: 'partial',
    description: 'Streams 1,000 chunks as partial results, then the whole.',
    handler: () =>
      concat(
        range(0, STREAM_CHUNKS).pipe(map((i) => partialResult({ content: [{ type: 'text', text: `chunk ${i}` }] }))),
        of({ content: [{ type: 'text' as const, text: 'done' }] }),
      ),
  });
  server.tool({
    name: 'progress',
    description: 'Streams 1,000 chunks as progress messages, then the whole.',
    handler: () =>
      concat(
        range(0, STREAM_CHUNKS).pipe(map((i) => progress(i + 1, STREAM_CHUNKS, `chunk ${i}`))),
        of({ content: [{ type: 'text' as const, text: 'done' }] }),
      ),
  });
  return server;
}

/** A client of a fresh stream server, in memory, that declared partial results. */
export async function streamHarness(): Promise<{ call(side: StreamSide): Promise<StreamTiming>; close(): void }> {
  const [clientSide, serverSide] = createInMemoryPair();
  streamServer().connect(serverSide);
  const client: McpClient = await connect(clientSide, {
    name: 'bench-stream-client',
    version: '1.0.0',
    partialResults: true,
  });
  return {
    call: async (side) => {
      const started = performance.now();
      let first = NaN;
      let chunks = 0;
      const type = side === 'partial' ? 'partial' : 'progress';
      await lastValueFrom(
        client.callTool(side, {}).pipe(
          tap((event) => {
            if (event.type !== type) return;
            if (chunks++ === 0) first = performance.now() - started;
          }),
        ),
      );
      const elapsed = performance.now() - started;
      if (chunks !== STREAM_CHUNKS) throw new Error(`${side}: ${chunks} chunks arrived, not ${STREAM_CHUNKS}`);
      return { chunksPerSecond: (chunks / elapsed) * 1000, firstChunkMs: first };
    },
    close: () => client.close(),
  };
}
