import { connect as tcpConnect } from 'node:net';
import type { Socket } from 'node:net';
import { createServer } from '../../../lib/server/server';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';

// Slow and numerous clients (#13): the deadlines are Node's own, checked on its clock, so these
// tests use short real deadlines.

let running: RunningStreamableHttpServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** The server closed the connection: with a 408 answer or with nothing, never with another answer. */
function expectCutOff(received: string): void {
  expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
}

/** Opens a raw connection, writes `text`, and resolves with what came back once the server closed it. */
function trickle(port: number, text: string): { socket: Socket; closed: Promise<string> } {
  const socket = tcpConnect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.write(text);
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.on('error', () => undefined);
  return { socket, closed };
}

describe('startStreamableHttpServer and slow or numerous clients (#13)', () => {
  it('cuts off a client that never finishes its headers', async () => {
    running = await startStreamableHttpServer({
      server: createServer({ name: 's', version: '1' }),
      headersTimeoutMs: 200,
    });
    const { closed } = trickle(running.port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expectCutOff(await closed);
  });

  it('cuts off a request whose body never arrives whole', async () => {
    running = await startStreamableHttpServer({
      server: createServer({ name: 's', version: '1' }),
      headersTimeoutMs: 200,
      requestTimeoutMs: 300,
    });
    const { closed } = trickle(
      running.port,
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc"',
    );
    expectCutOff(await closed);
  });

  it('refuses connections past maxConnections', async () => {
    running = await startStreamableHttpServer({ server: createServer({ name: 's', version: '1' }), maxConnections: 1 });
    const first = trickle(running.port, '');
    await new Promise((resolve) => first.socket.once('connect', resolve));
    const second = trickle(running.port, '');
    expect(await second.closed).toBe('');
    expect(first.socket.destroyed).toBe(false);
    first.socket.destroy();
  });
});
