import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import WebSocket from 'ws';
import { createEverythingServer, serveHttp } from '../../examples/conformance/everything-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { startWebSocketServer } from '../../lib/transport/websocket/websocket-server';
import { hostile, seeded, validCall } from '../../benchmarks/hostile-frames';

// Hostile frames over every transport (#13), seeded so a failure replays: malformed JSON, wrong
// envelopes, junk params, unknown and oversized methods, stray responses, batches, and 2026-07-28
// requests with broken `_meta`, interleaved with valid requests. The server must never crash,
// never answer -32603 (an internal error means a peer reached a bug), and answer every valid
// request correctly.

const SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');
const FRAMES = 600;

/** A valid request and what its answer must say. */
function valid(n: number): { frame: Record<string, unknown>; check: (answer: Record<string, unknown>) => void } {
  const call = validCall(n);
  return {
    frame: call.frame,
    check: (answer) =>
      expect(answer).toMatchObject({ id: call.id, result: { content: [{ type: 'text', text: call.text }] } }),
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
