import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import WebSocket from 'ws';
import { createEverythingServer, serveHttp } from '../../examples/everything-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/streamable-http/streamable-http-server';
import { startWebSocketServer } from '../../lib/transport/websocket/websocket-server';

// Hostile frames over every transport (#13), seeded so a failure replays: malformed JSON, wrong
// envelopes, junk params, unknown and oversized methods, stray responses, batches, and 2026-07-28
// requests with broken `_meta`, interleaved with valid requests. The server must never crash,
// never answer -32603 (an internal error means a peer reached a bug), and answer every valid
// request correctly.

const SERVER = resolve(__dirname, '../../dist/examples/everything-server.js');
const FRAMES = 600;
const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One hostile frame as text (what goes on the wire). */
function hostile(random: () => number, n: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const junk = pick<unknown>([null, 0, -1, 1.5, '', 'x', [], {}, [[]], { a: { b: { c: [] } } }, true, '\u0000\uffff']);
  const shapes: Array<() => unknown> = [
    () => '{"jsonrpc":"2.0","id":' + n + ',"method":"tools/list"', // cut short
    () => String.fromCharCode(...Array.from({ length: 20 }, () => Math.floor(random() * 256))),
    () => ({ jsonrpc: '1.0', id: n, method: 'ping' }),
    () => ({ jsonrpc: '2.0', id: junk, method: 'tools/call', params: { name: 'echo' } }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: junk }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'x'.repeat(Math.floor(random() * 5000)) }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'tools/call', params: junk }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'tools/call', params: { name: junk, arguments: junk } }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'resources/read', params: { uri: junk } }),
    () => ({ jsonrpc: '2.0', id: `h${n}`, method: 'resources/read', params: { uri: `x://h${'&'.repeat(40)}#` } }),
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'prompts/get',
      params: { name: 'test_prompt_with_arguments', arguments: junk },
    }),
    () => ({ jsonrpc: '2.0', id: n * 7919, result: junk }),
    () => ({ jsonrpc: '2.0', id: n * 7919, error: junk }),
    () => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: junk } }),
    () => ({ jsonrpc: '2.0', method: 'notifications/progress', params: junk }),
    () => [{ jsonrpc: '2.0', id: `h${n}`, method: 'ping' }, junk],
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' }, _meta: junk },
    }),
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'tools/call',
      params: {
        name: 'test_input_required_result_elicitation',
        requestState: junk,
        inputResponses: junk,
        _meta: META_2026,
      },
    }),
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'subscriptions/listen',
      params: { notifications: junk, _meta: META_2026 },
    }),
    () => ({
      jsonrpc: '2.0',
      id: `h${n}`,
      method: 'server/discover',
      params: { _meta: { ...META_2026, 'io.modelcontextprotocol/logLevel': junk } },
    }),
  ];
  const frame = pick(shapes)();
  return typeof frame === 'string' ? frame : JSON.stringify(frame);
}

/** A valid request and what its answer must say. */
function valid(n: number): { frame: Record<string, unknown>; check: (answer: Record<string, unknown>) => void } {
  const id = `v${n}`;
  return {
    frame: {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: n, b: 1 }, _meta: META_2026 },
    },
    check: (answer) =>
      expect(answer).toMatchObject({ id, result: { content: [{ type: 'text', text: String(n + 1) }] } }),
  };
}

/** Checks the answers: no -32603 anywhere, and every valid request answered as it should be. */
function judge(
  answers: readonly Record<string, unknown>[],
  expected: ReadonlyMap<string, (answer: Record<string, unknown>) => void>,
) {
  const internal = answers.filter((answer) => (answer.error as { code?: number } | undefined)?.code === -32603);
  expect(internal).toEqual([]);
  for (const [id, check] of expected) {
    const answer = answers.find((candidate) => candidate.id === id);
    expect(answer).toBeDefined();
    check(answer!);
  }
}

describe('hostile frames (#13)', () => {
  it('over stdio: no crash, no -32603, every valid request answered', async () => {
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [SERVER], { stdio: 'pipe' });
    const answers: Record<string, unknown>[] = [];
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const parsed = JSON.parse(line) as unknown;
        for (const item of Array.isArray(parsed) ? parsed : [parsed]) answers.push(item as Record<string, unknown>);
      }
    });
    const random = seeded(11);
    const expected = new Map<string, (answer: Record<string, unknown>) => void>();
    for (let n = 0; n < FRAMES; n++) {
      if (n % 10 === 0) {
        const request = valid(n);
        expected.set(request.frame.id as string, request.check);
        child.stdin.write(`${JSON.stringify(request.frame)}\n`);
      } else {
        child.stdin.write(`${hostile(random, n).replace(/\n/g, ' ')}\n`);
      }
    }
    for (let wait = 0; wait < 400 && [...expected.keys()].some((id) => !answers.some((a) => a.id === id)); wait++) {
      await new Promise((done) => setTimeout(done, 10));
    }
    expect(child.exitCode).toBeNull();
    judge(answers, expected);
    child.kill();
  }, 30_000);

  it('over Streamable HTTP: no crash, no -32603, every valid request answered', async () => {
    const running: RunningStreamableHttpServer = await serveHttp(0);
    try {
      const random = seeded(12);
      const answers: Record<string, unknown>[] = [];
      const expected = new Map<string, (answer: Record<string, unknown>) => void>();
      const headerSets = [
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' },
        { 'mcp-protocol-version': '2025-11-25' },
        { 'mcp-protocol-version': '\u00ff' },
        { 'mcp-session-id': 'nope' },
        {},
      ];
      for (let n = 0; n < FRAMES / 2; n++) {
        let body: string;
        let headers: Record<string, string>;
        if (n % 10 === 0) {
          const request = valid(n);
          expected.set(request.frame.id as string, request.check);
          body = JSON.stringify(request.frame);
          headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' };
        } else {
          body = hostile(random, n);
          headers = Object.fromEntries(
            Object.entries(headerSets[Math.floor(random() * headerSets.length)]!).map(([k, v]) => [
              k,
              v.replace(/[^\x20-\x7e]/g, '?'),
            ]),
          );
        }
        const response = await fetch(running.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body,
        });
        expect(response.status).not.toBe(500);
        const text = await response.text();
        for (const line of text.split('\n')) {
          const json = line.startsWith('data: ') ? line.slice(6) : line.startsWith('{') ? line : undefined;
          if (json !== undefined) answers.push(JSON.parse(json) as Record<string, unknown>);
        }
      }
      judge(answers, expected);
    } finally {
      await running.close();
    }
  }, 30_000);

  it('over WebSocket: no crash, no -32603, every valid request answered', async () => {
    const server = createEverythingServer();
    const running = await startWebSocketServer({ onSession: (transport) => void server.connect(transport) });
    const socket = new WebSocket(running.url, 'mcp');
    const answers: Record<string, unknown>[] = [];
    socket.on('message', (data) => {
      const parsed = JSON.parse(String(data)) as unknown;
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) answers.push(item as Record<string, unknown>);
    });
    await new Promise((done) => socket.once('open', done));
    const random = seeded(13);
    const expected = new Map<string, (answer: Record<string, unknown>) => void>();
    for (let n = 0; n < FRAMES; n++) {
      if (n % 10 === 0) {
        const request = valid(n);
        expected.set(request.frame.id as string, request.check);
        socket.send(JSON.stringify(request.frame));
      } else socket.send(hostile(random, n));
    }
    for (let wait = 0; wait < 400 && [...expected.keys()].some((id) => !answers.some((a) => a.id === id)); wait++) {
      await new Promise((done) => setTimeout(done, 10));
    }
    expect(socket.readyState).toBe(WebSocket.OPEN);
    judge(answers, expected);
    socket.close();
    server.close();
    await running.close();
  }, 30_000);
});
