import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { ClientRevision } from '../../lib/client/client-api';
import type { ToolCallEvent } from '../../lib/client/tool-call';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startRedis } from '../support/redis-server';
import { startScriptProcess, stopScriptProcess } from '../support/script-process';
import type { ScriptProcess } from '../support/script-process';
import type { RunningRedis } from '../support/redis-server';
import { startRoundRobinFront } from '../support/round-robin-front';
import type { RoundRobinFront } from '../support/round-robin-front';

// Partial tool results (issue #43) in the cluster: two processes of one server on a real
// redis-server, behind a front that sends each request where the test pins it. A session's call
// that lands on the process that does not own the session is forwarded to its owner, and the
// partial results the owner's tool emits reach the caller in order before the result, as they do
// on one process; a modern (2026-07-28) call is served where it lands. A caller that did not
// declare partial results gets the same chunks as progress. Each process is a `node` of its own
// running the built package.

const DIST = resolve(__dirname, '../../dist/lib');

/** One cluster process: a server whose `write` tool streams one partial result per word. */
const PROCESS = `
const { createServer, joinRedisCluster, partialResults, partialResult, progress, textResult } = require(${JSON.stringify(`${DIST}/index.js`)});
const { concat, from, of, concatMap, delay } = require('rxjs');
const [redisUrl] = process.argv.slice(1);
(async () => {
  const cluster = await joinRedisCluster({ redis: redisUrl });
  const server = createServer({
    name: 'writer',
    version: '1.0.0',
    logging: false,
    requestState: { keys: cluster.requestStateKeys },
    extensions: [partialResults()],
  });
  server.tool({
    name: 'write',
    inputSchema: { type: 'object', properties: { words: { type: 'array', items: { type: 'string' } } } },
    handler: ({ words }) =>
      concat(
        of(progress(0, words.length)),
        from(words).pipe(concatMap((word, i) =>
          of(partialResult({ content: [{ type: 'text', text: word }], structuredContent: { i, pid: process.pid } })).pipe(delay(5)),
        )),
        of(textResult(words.join(' ') + ' @' + process.pid)),
      ),
  });
  const running = await cluster.serve(server, { host: '127.0.0.1', port: 0 });
  process.stdout.write('serving at ' + running.url.href + '\\n');
  process.once('SIGTERM', () => void cluster.close().then(() => process.exit(0)));
})().catch((error) => {
  process.stderr.write(String(error && error.stack || error) + '\\n');
  process.exit(1);
});
`;

type ClusterProcess = ScriptProcess;

const startProcess = (redisUrl: string): Promise<ClusterProcess> => startScriptProcess(PROCESS, [redisUrl]);
const stopProcess = stopScriptProcess;

const WORDS = ['one', 'two', 'three', 'four'];

describe('partial tool results across two cluster processes on Redis', () => {
  let redis: RunningRedis;
  let front: RoundRobinFront;
  const processes: ClusterProcess[] = [];
  const clients: McpClient[] = [];

  beforeAll(async () => {
    if (!existsSync(`${DIST}/index.js`)) throw new Error(`${DIST}/index.js is missing: run npm run build first`);
    redis = await startRedis();
    processes.push(...(await Promise.all([startProcess(redis.url), startProcess(redis.url)])));
    front = await startRoundRobinFront(processes.map((running) => running.url.href));
  }, 30_000);
  afterAll(async () => {
    for (const client of clients) client.close();
    await front?.close();
    await Promise.all(processes.map(stopProcess));
    await redis?.stop();
  });

  async function client(url: string, protocolVersion: ClientRevision, partialResults: boolean): Promise<McpClient> {
    const transport = createStreamableHttpClientTransport({ url });
    const connected = await connect(transport, {
      name: 'cluster-partials',
      version: '1.0.0',
      protocolVersion,
      partialResults,
    });
    clients.push(connected);
    return connected;
  }

  const pidOf = (text: string) => Number(/@(\d+)$/.exec(text)?.[1]);
  const resultText = (events: readonly ToolCallEvent[]) => {
    const last = events.at(-1);
    if (last?.type !== 'result') throw new Error('no result');
    return (last.result.content as Array<{ text: string }>)[0]!.text;
  };

  it('forwards a session call to its owner and brings its partial results back in order, then the result', async () => {
    front.pin('initialize', 0);
    const session = await client(front.url, '2025-11-25', true);
    front.pin('tools/call', 1);
    const events = await lastValueFrom(session.callTool('write', { words: WORDS }).pipe(toArray()));
    const call = front.requests.find((request) => request.rpcMethod === 'tools/call');
    expect(call?.backend).toBe(1);
    const partials = events.filter((event) => event.type === 'partial');
    expect(partials.map((event) => (event.type === 'partial' ? event.seq : -1))).toEqual([0, 1, 2, 3]);
    expect(partials.map((event) => (event.type === 'partial' ? event.content : undefined))).toEqual(
      WORDS.map((text) => [{ type: 'text', text }]),
    );
    // The owner ran the tool: every chunk and the result name its process, the one initialize reached.
    const owner = processes[0]!.child.pid;
    expect(pidOf(resultText(events))).toBe(owner);
    for (const event of partials) if (event.type === 'partial') expect(event.structuredContent?.pid).toBe(owner);
  });

  it('gives a session that did not declare partial results the same chunks as progress, through the forward', async () => {
    front.pin('initialize', 0);
    const session = await client(front.url, '2025-11-25', false);
    front.pin('tools/call', 1);
    const events = await lastValueFrom(session.callTool('write', { words: WORDS }).pipe(toArray()));
    expect(events.filter((event) => event.type === 'partial')).toEqual([]);
    expect(events.filter((event) => event.type === 'progress').length).toBeGreaterThanOrEqual(WORDS.length);
    expect(resultText(events)).toBe(`${WORDS.join(' ')} @${processes[0]!.child.pid}`);
  });

  it.each([0, 1])('serves a modern call with its partial results on process %i, where it lands', async (at) => {
    const modern = await client(processes[at]!.url.href, '2026-07-28', true);
    const events = await lastValueFrom(modern.callTool('write', { words: WORDS }).pipe(toArray()));
    const partials = events.filter((event) => event.type === 'partial');
    expect(partials.map((event) => (event.type === 'partial' ? event.seq : -1))).toEqual([0, 1, 2, 3]);
    expect(pidOf(resultText(events))).toBe(processes[at]!.child.pid);
  });
});
