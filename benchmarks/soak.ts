/**
 * The long soak (#13): hostile frames by the million over each transport, then connect/call/
 * disconnect churn for a length of time, against the example server. It counts what the fuzz
 * tests assert on a small scale: crashes, internal errors (-32603), valid requests left unanswered
 * or answered wrongly; and, for the churn, the heap after full collections and the open handles,
 * minute by minute. Run with --expose-gc (the npm script does):
 *
 *   npm run soak -- [--frames 1000000] [--minutes 60] [--seed 1]
 *
 * Writes benchmarks/results/soak.json and soak.md.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import WebSocket from 'ws';
import { createEverythingServer, serveHttp } from '../examples/conformance/everything-server';
import {
  connect,
  createInMemoryPair,
  createStreamableHttpClientTransport,
  createWebSocketClientTransport,
  startWebSocketServer,
} from '../lib/index';
import type { McpClient } from '../lib/index';
import { answerText, hostile, isInternalError, seeded, validCall } from './hostile-frames';

const RESULTS = resolve(__dirname, '../../benchmarks/results');
const SERVER = resolve(__dirname, '../examples/conformance/everything-server.js');
/** One frame in this many is a valid request. */
const VALID_EVERY = 10;

interface FrameRun {
  readonly transport: string;
  readonly frames: number;
  readonly valid: number;
  readonly crashed: boolean;
  readonly internalErrors: number;
  readonly unanswered: number;
  readonly wrong: number;
  readonly seconds: number;
}

/** Follows the valid requests sent and the answers that came back. */
class Tally {
  readonly expected = new Map<string, string>();
  internalErrors = 0;
  wrong = 0;
  valid = 0;

  frame(random: () => number, n: number): string {
    if (n % VALID_EVERY !== 0) return hostile(random, n).replace(/\n/g, ' ');
    const call = validCall(n);
    this.expected.set(call.id, call.text);
    this.valid++;
    return JSON.stringify(call.frame);
  }

  answer(parsed: unknown): void {
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      const answer = item as Record<string, unknown>;
      if (isInternalError(answer)) this.internalErrors++;
      const want = typeof answer.id === 'string' ? this.expected.get(answer.id) : undefined;
      if (want === undefined) continue;
      this.expected.delete(answer.id as string);
      if (answerText(answer) !== want) this.wrong++;
    }
  }

  async drained(ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (this.expected.size > 0 && Date.now() < end) await new Promise((done) => setTimeout(done, 20));
  }

  result(transport: string, frames: number, crashed: boolean, started: number): FrameRun {
    const { valid, internalErrors, wrong } = this;
    const seconds = (Date.now() - started) / 1000;
    return { transport, frames, valid, crashed, internalErrors, unanswered: this.expected.size, wrong, seconds };
  }
}

/** Splits newline-delimited JSON as it arrives. */
function lines(onLine: (line: string) => void): (chunk: string) => void {
  let buffered = '';
  return (chunk) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line !== '') onLine(line);
    }
  };
}

async function framesOverStdio(frames: number, seed: number): Promise<FrameRun> {
  const started = Date.now();
  const tally = new Tally();
  const child = spawn(process.execPath, [SERVER], { stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdout.setEncoding('utf8');
  child.stdout.on(
    'data',
    lines((line) => tally.answer(JSON.parse(line))),
  );
  const random = seeded(seed);
  for (let n = 0; n < frames; n++) {
    if (child.exitCode !== null) break;
    if (!child.stdin.write(`${tally.frame(random, n)}\n`)) await new Promise((done) => child.stdin.once('drain', done));
  }
  await tally.drained(60_000);
  // The server exits only when told to: an exit before that is a crash.
  const crashed = child.exitCode !== null;
  child.kill('SIGTERM');
  return tally.result('stdio', frames, crashed, started);
}

async function framesOverHttp(frames: number, seed: number): Promise<FrameRun> {
  const started = Date.now();
  const tally = new Tally();
  const running = await serveHttp(0);
  const url = new URL(running.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const random = seeded(seed);
  let status500 = 0;
  const post = (body: string, headers: Record<string, string>) =>
    new Promise<void>((done) => {
      const req = request(url, { method: 'POST', agent, headers }, (res) => {
        if (res.statusCode === 500) status500++;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          for (const line of text.split('\n')) {
            const json = line.startsWith('data: ') ? line.slice(6) : line.startsWith('{') ? line : undefined;
            if (json !== undefined) tally.answer(JSON.parse(json));
          }
          done();
        });
      });
      req.on('error', () => done());
      req.end(body);
    });
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const stateless = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' };
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < frames) {
        const n = next++;
        const body = tally.frame(random, n);
        await post(body, n % VALID_EVERY === 0 ? { ...base, ...stateless } : base);
      }
    }),
  );
  agent.destroy();
  await running.close();
  const run = tally.result('Streamable HTTP', frames, false, started);
  return { ...run, internalErrors: run.internalErrors + status500 };
}

async function framesOverWebSocket(frames: number, seed: number): Promise<FrameRun> {
  const started = Date.now();
  const tally = new Tally();
  const server = createEverythingServer();
  const running = await startWebSocketServer({ onSession: (transport) => void server.connect(transport) });
  const socket = new WebSocket(running.url, 'mcp');
  let crashed = false;
  socket.on('close', () => (crashed = true));
  socket.on('message', (data) => tally.answer(JSON.parse(String(data))));
  await new Promise((done) => socket.once('open', done));
  const random = seeded(seed);
  for (let n = 0; n < frames && !crashed; n++) {
    socket.send(tally.frame(random, n));
    while (socket.bufferedAmount > 1 << 20) await new Promise((done) => setTimeout(done, 5));
    // Let answers flow now and then, so the server's output never waits on an unread socket.
    if (n % 1000 === 999) await new Promise((done) => setImmediate(done));
  }
  await tally.drained(60_000);
  const run = tally.result('WebSocket', frames, crashed, started);
  socket.removeAllListeners('close');
  socket.close();
  server.close();
  await running.close();
  return run;
}

interface ChurnSample {
  readonly minute: number;
  readonly cycles: number;
  readonly heapKiB: number;
  readonly handles: number;
}

interface ChurnRun {
  readonly minutes: number;
  readonly cycles: number;
  readonly failedCycles: number;
  readonly samples: readonly ChurnSample[];
}

const gc = (globalThis as { gc?: () => void }).gc;
const activeHandles = (): number =>
  (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;

async function churn(minutes: number): Promise<ChurnRun> {
  const server = createEverythingServer();
  const http = await serveHttp(0);
  const ws = await startWebSocketServer({ onSession: (transport) => void server.connect(transport) });
  const openers: Array<() => Promise<McpClient>> = [
    () => {
      const [client, end] = createInMemoryPair();
      server.connect(end);
      return connect(client, { name: 'soak', version: '1' });
    },
    () =>
      connect(createStreamableHttpClientTransport({ url: http.url }), {
        name: 'soak',
        version: '1',
        protocolVersion: '2025-11-25',
      }),
    () => connect(createStreamableHttpClientTransport({ url: http.url }), { name: 'soak', version: '1' }),
    () => connect(createWebSocketClientTransport({ url: ws.url }), { name: 'soak', version: '1' }),
  ];
  const samples: ChurnSample[] = [];
  const end = Date.now() + minutes * 60_000;
  let cycles = 0;
  let failedCycles = 0;
  let nextSample = Date.now();
  while (Date.now() < end) {
    if (Date.now() >= nextSample) {
      await new Promise((done) => setTimeout(done, 50));
      gc?.();
      gc?.();
      const heap = process.memoryUsage().heapUsed;
      samples.push({ minute: samples.length, cycles, heapKiB: Math.round(heap / 1024), handles: activeHandles() });
      nextSample += 60_000;
    }
    try {
      const client = await openers[cycles % openers.length]!();
      const answer = await client.promises.callTool('add', { a: cycles, b: 1 });
      if ((answer.content[0] as { text?: string } | undefined)?.text !== String(cycles + 1)) failedCycles++;
      await client.close();
    } catch {
      failedCycles++;
    }
    cycles++;
  }
  await new Promise((done) => setTimeout(done, 50));
  gc?.();
  gc?.();
  samples.push({
    minute: minutes,
    cycles,
    heapKiB: Math.round(process.memoryUsage().heapUsed / 1024),
    handles: activeHandles(),
  });
  server.close();
  await http.close();
  await ws.close();
  return { minutes, cycles, failedCycles, samples };
}

function markdown(framesRuns: readonly FrameRun[], churned: ChurnRun, seed: number): string {
  const rows = framesRuns.map(
    (r) =>
      `| ${r.transport} | ${r.frames} | ${r.valid} | ${r.crashed ? 'yes' : 'no'} | ${r.internalErrors} | ${r.unanswered} | ${r.wrong} | ${r.seconds.toFixed(0)} |`,
  );
  const first = churned.samples[1] ?? churned.samples[0];
  const last = churned.samples.at(-1);
  const growth =
    first && last && last.cycles > first.cycles
      ? `${(((last.heapKiB - first.heapKiB) * 1024) / (last.cycles - first.cycles)).toFixed(1)} bytes a cycle`
      : 'n/a';
  return [
    '# Soak',
    '',
    `Seed ${seed}; Node ${process.version}; ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '## Hostile frames',
    '',
    `One frame in ${VALID_EVERY} is a valid \`tools/call\`; the rest come from the fuzz generator.`,
    '',
    '| transport | frames | valid | crashed | -32603 (or HTTP 500) | unanswered | wrong | seconds |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '## Churn',
    '',
    `${churned.cycles} connect/call/disconnect cycles in ${churned.minutes} min over in-memory, Streamable HTTP`,
    `(2025-11-25 and 2026-07-28) and WebSocket in turn; ${churned.failedCycles} failed. Heap after full`,
    `collections, minute by minute (growth from minute 1 to the end: ${growth}):`,
    '',
    '| minute | cycles | heap KiB | handles |',
    '| --- | --- | --- | --- |',
    ...churned.samples.map((s) => `| ${s.minute} | ${s.cycles} | ${s.heapKiB} | ${s.handles} |`),
    '',
  ].join('\n');
}

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} takes a number`);
  return value;
}

async function main(): Promise<void> {
  const frames = option('frames', 1_000_000);
  const minutes = option('minutes', 60);
  const seed = option('seed', 1);
  if (!gc) throw new Error('run with --expose-gc');
  const runs: FrameRun[] = [];
  for (const run of [framesOverStdio, framesOverHttp, framesOverWebSocket]) {
    const result = await run(frames, seed);
    process.stderr.write(`${JSON.stringify(result)}\n`);
    runs.push(result);
  }
  const churned = await churn(minutes);
  writeFileSync(resolve(RESULTS, 'soak.json'), `${JSON.stringify({ seed, runs, churn: churned }, null, 2)}\n`);
  writeFileSync(resolve(RESULTS, 'soak.md'), markdown(runs, churned, seed));
  const clean = runs.every((r) => !r.crashed && r.internalErrors + r.unanswered + r.wrong === 0);
  process.stderr.write(`soak ${clean && churned.failedCycles === 0 ? 'clean' : 'FOUND PROBLEMS'}\n`);
  process.exitCode = clean && churned.failedCycles === 0 ? 0 : 1;
}

void main();
