import { createServer as createTcpServer, connect as tcpConnect } from 'node:net';
import type { AddressInfo, Server as TcpServer, Socket } from 'node:net';
import { defer, endWith, interval, lastValueFrom, map, take, toArray } from 'rxjs';
import { z } from 'zod';
import {
  connect,
  createServer,
  createStreamableHttpClientTransport,
  progress,
  startStreamableHttpServer,
  textResult,
} from '../../lib/index';
import type { McpClient, RunningStreamableHttpServer } from '../../lib/index';
import { seeded } from '../../benchmarks/hostile-frames';

// Resumability through a proxy that cuts streams (#13): a Streamable HTTP session (2025-11-25)
// whose SSE answers are cut at seeded random points after their first event. The client resumes
// each cut stream with `Last-Event-ID`; the server replays what the cut lost. Every call must end
// with its own result (0 lost), every tool must run once (0 duplicated), every progress report
// must arrive once and in order, and no call may hang.

const CALLS = 60;
const IN_FLIGHT = 8;
const STEPS = 6;

/**
 * A TCP proxy that passes requests through and cuts a connection (both sides) a seeded number of
 * bytes after an SSE answer delivered its first event, for about `rate` of such answers.
 */
function startCuttingProxy(upstreamPort: number, random: () => number, rate: number) {
  const sockets = new Set<Socket>();
  let cuts = 0;
  const server: TcpServer = createTcpServer((downstream) => {
    const upstream = tcpConnect(upstreamPort, '127.0.0.1');
    sockets.add(downstream).add(upstream);
    const cut = (): void => {
      cuts++;
      downstream.destroy();
      upstream.destroy();
    };
    downstream.on('data', (chunk) => upstream.write(chunk));
    // What the server sent on this connection since the current answer's status line.
    let answer = '';
    let cutAfter: number | undefined;
    let forwarded = 0;
    upstream.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (text.startsWith('HTTP/1.1 ')) {
        answer = '';
        cutAfter = undefined;
      }
      if (answer.length < 8192) answer += text;
      if (cutAfter === undefined && /content-type: text\/event-stream/i.test(answer)) {
        const body = answer.indexOf('\r\n\r\n');
        // Once the answer carried its first event, decide whether and where to cut what follows.
        if (body !== -1 && answer.indexOf('\n\n', body + 4) !== -1) {
          cutAfter = random() < rate ? Math.floor(random() * 400) : Infinity;
          forwarded = 0;
          downstream.write(chunk);
          return;
        }
      }
      if (cutAfter !== undefined && forwarded + chunk.length > cutAfter) {
        downstream.write(chunk.subarray(0, Math.max(0, cutAfter - forwarded)), cut);
        return;
      }
      forwarded += chunk.length;
      downstream.write(chunk);
    });
    for (const [from, to] of [
      [downstream, upstream],
      [upstream, downstream],
    ] as const) {
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  return {
    listening: new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    ),
    get cuts() {
      return cuts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('resumability through a stream-cutting proxy (#13)', () => {
  let running: RunningStreamableHttpServer | undefined;
  let proxy: ReturnType<typeof startCuttingProxy> | undefined;
  let client: McpClient | undefined;

  afterEach(async () => {
    await client?.close();
    await proxy?.close();
    await running?.close();
  });

  it.each([1, 2, 3])(
    'loses, repeats and hangs nothing with seed %i',
    async (seed) => {
      const random = seeded(seed);
      const runs = new Map<string, number>();
      const server = createServer({ name: 'cut-streams', version: '1.0.0' });
      server.tool({
        name: 'steps',
        description: 'Reports progress a few times, then answers with its tag.',
        inputSchema: z.object({ tag: z.string() }),
        handler: ({ tag }) =>
          defer(() => {
            runs.set(tag, (runs.get(tag) ?? 0) + 1);
            return interval(2).pipe(
              take(STEPS),
              map((i) => progress(i + 1, STEPS)),
              endWith(textResult(tag)),
            );
          }),
      });
      running = await startStreamableHttpServer({ host: '127.0.0.1', port: 0, server });
      proxy = startCuttingProxy(Number(new URL(running.url).port), random, 0.5);
      const port = await proxy.listening;
      client = await connect(
        createStreamableHttpClientTransport({
          url: `http://127.0.0.1:${port}${new URL(running.url).pathname}`,
          reconnect: { initialDelayMs: 5, maxDelayMs: 20, maxRetries: 8 },
        }),
        { name: 'cut-client', version: '1.0.0', protocolVersion: '2025-11-25' },
      );
      const open = client;

      const call = async (n: number) => {
        const tag = `call-${seed}-${n}`;
        const events = await lastValueFrom(open.callTool('steps', { tag }, { timeoutMs: 10_000 }).pipe(toArray()));
        return { tag, events };
      };
      const outcomes: Array<Awaited<ReturnType<typeof call>>> = [];
      const failures: unknown[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < CALLS) {
            const n = next++;
            try {
              outcomes.push(await call(n));
            } catch (error) {
              failures.push(error);
            }
          }
        }),
      );

      expect(failures).toEqual([]);
      expect(outcomes).toHaveLength(CALLS);
      for (const { tag, events } of outcomes) {
        // Every progress report once and in order, then the call's own result.
        expect(events.filter((e) => e.type === 'progress').map((e) => (e as { progress: number }).progress)).toEqual(
          Array.from({ length: STEPS }, (_, i) => i + 1),
        );
        expect(events.at(-1)).toEqual({ type: 'result', result: { content: [{ type: 'text', text: tag }] } });
        expect(runs.get(tag)).toBe(1);
      }
      expect(runs.size).toBe(CALLS);
      // The proxy did cut streams, so resumption was exercised.
      expect(proxy.cuts).toBeGreaterThan(CALLS / 5);
    },
    30_000,
  );
});
