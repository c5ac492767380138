import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { concat, defer, from, map, of } from 'rxjs';
import { partialResult } from '../../lib/connection/handler-events';
import { PARTIAL_RESULT_METHOD } from '../../lib/connection/partial-results';
import { partialResults } from '../../lib/server/partial-results';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { createFrameWriter } from '../../lib/transport/stdio/frame-writer';

// A tool that streams faster than its caller reads (issue #43: a bound on what the server buffers
// for a slow client). Partial results may be missed (SEP-2998: the result is the whole answer), so
// a transport whose reader is behind skips them instead of buffering them: the stream survives a
// reader that has stopped, the server's buffer stays bounded, and the result arrives whole once
// the reader reads again, after the pieces that fitted, their seq showing the gap.

const PIECES = 200;
const PIECE = 'x'.repeat(32 * 1024);
const MAX_BUFFERED = 1024 * 1024;

/** Posts one JSON-RPC message; resolves with the response, paused when `paused`. */
function post(url: URL, body: unknown, headers: Record<string, string> = {}, paused = false): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...headers,
        },
      },
      (res) => {
        if (paused) res.pause();
        resolve(res);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => resolve(text));
    res.on('error', reject);
    res.resume();
  });
}

const messagesOf = (sse: string): Array<Record<string, unknown>> =>
  sse
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);

describe('partial results and a reader that falls behind', () => {
  let running: RunningStreamableHttpServer;
  let finished: () => void;
  let toolDone: Promise<void>;

  beforeEach(async () => {
    toolDone = new Promise((resolve) => (finished = resolve));
    const server = createServer({ name: 'flood', version: '1.0.0', logging: false, extensions: [partialResults()] });
    server.tool({
      name: 'flood',
      handler: () =>
        concat(
          from(Array.from({ length: PIECES }, (_, i) => i)).pipe(map(() => partialResult(PIECE))),
          defer(() => {
            finished();
            return of(textResult('whole'));
          }),
        ),
    });
    running = await startStreamableHttpServer({ host: '127.0.0.1', port: 0, server, maxBufferedBytes: MAX_BUFFERED });
  });
  afterEach(() => running.close());

  it('over Streamable HTTP: skips the pieces a stopped reader cannot take, keeps the stream, and answers whole', async () => {
    const init = await post(running.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { experimental: { 'io.modelcontextprotocol/partial-results': {} } },
        clientInfo: { name: 'slow', version: '1.0.0' },
      },
    });
    const session = String(init.headers['mcp-session-id']);
    await readAll(init);
    await readAll(
      await post(running.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session }),
    );
    const call = await post(
      running.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'flood', _meta: { partialResultToken: 'p' } } },
      { 'mcp-session-id': session },
      true,
    );
    // The tool has emitted everything while nobody read: the server kept a bounded buffer.
    await toolDone;
    const messages = messagesOf(await readAll(call));
    const pieces = messages.filter((message) => message.method === PARTIAL_RESULT_METHOD);
    const seqs = pieces.map((message) => (message.params as { seq: number }).seq);
    expect(pieces.length).toBeGreaterThan(0);
    expect(pieces.length).toBeLessThan(PIECES);
    // In order, with the gap showing in seq.
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(seqs.at(-1)).toBeLessThan(PIECES);
    const result = messages.at(-1) as { id: number; result: { content: Array<{ text: string }> } };
    expect(result.id).toBe(2);
    expect(result.result.content[0]!.text).toBe('whole');
    // What was buffered stayed near the bound: about a quarter of it, and one piece over.
    expect(pieces.length * PIECE.length).toBeLessThan(MAX_BUFFERED);
  });
});

describe('the stdio frame writer', () => {
  it('says it is backlogged while it waits for drain, and not once drained', () => {
    const listeners: Array<() => void> = [];
    let accept = true;
    const written: string[] = [];
    const writer = createFrameWriter({
      write: (text) => {
        written.push(text);
        return accept;
      },
      on: (_event, listener) => listeners.push(listener),
      off: () => undefined,
    });
    expect(writer.backlogged).toBe(false);
    accept = false;
    writer.write('a\n');
    expect(writer.backlogged).toBe(true);
    accept = true;
    for (const listener of listeners) listener();
    expect(writer.backlogged).toBe(false);
    writer.discard();
  });
});
