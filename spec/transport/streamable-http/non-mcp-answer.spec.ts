import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from '../../../lib/client/client';
import { createStreamableHttpClientTransport } from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';

// A URL that is not an MCP endpoint (a web page, a health check) answers a POST with 200 and a
// body that is not JSON-RPC: the client says so, naming the URL and the content type.

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/** A server on 127.0.0.1 that answers every request 200 with `body` of content type `type`. */
async function answering(type: string | undefined, body: string): Promise<URL> {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (type !== undefined) response.setHeader('content-type', type);
      response.end(body);
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
}

async function connectError(url: URL, logged?: Array<Record<string, unknown>>): Promise<Error> {
  const logger = {
    // A console-like logger gets the message, then the record.
    warn: (message: unknown, fields?: unknown) => logged?.push({ fields, message }),
    error: () => undefined,
    info: () => undefined,
    debug: () => undefined,
    trace: () => undefined,
  };
  const transport = createStreamableHttpClientTransport({ url, ...(logged ? { logger } : {}) });
  const error = await connect(transport, { name: 'test', version: '1.0.0' }).then(
    () => new Error('connected'),
    (failure: Error) => failure,
  );
  transport.close();
  return error;
}

describe('a 200 answer that is not MCP', () => {
  it('names the URL, the status and the content type of an HTML page, and asks whether it is the MCP endpoint', async () => {
    const url = await answering('text/html; charset=utf-8', '<!doctype html><html><body>Welcome</body></html>');
    const error = await connectError(url);
    expect(error.message).toBe(
      `The server at ${url.href} answered 200 with content-type text/html, not an MCP response ` +
        '(application/json or text/event-stream): is this the MCP endpoint URL?',
    );
    expect(error.message).not.toMatch(/^HTTP 200$/);
  });

  it('says when the answer has no content type at all', async () => {
    const url = await answering(undefined, 'ok');
    const error = await connectError(url);
    expect(error.message).toContain(`The server at ${url.href} answered 200 with no content-type, not an MCP response`);
  });

  it('says so, at once, for a JSON answer that is not JSON-RPC (a REST API at that URL)', async () => {
    const url = await answering('application/json', '{"status":"ok"}');
    const error = await connectError(url);
    expect(error.message).toBe(
      `The server at ${url.href} answered 200 with content-type application/json, but its body is not a ` +
        'JSON-RPC message: is this the MCP endpoint URL?',
    );
  });

  it('says so for a JSON content type whose body is not JSON at all', async () => {
    const url = await answering('application/json', 'Service Unavailable');
    const error = await connectError(url);
    expect(error.message).toMatch(
      /answered 200 with content-type application\/json, but its body is not a JSON-RPC message/,
    );
  });

  it('logs a warning with the URL, the content type and the start of the body', async () => {
    const url = await answering('text/plain', 'service is healthy');
    const logged: Array<Record<string, unknown>> = [];
    await connectError(url, logged);
    expect(logged).toContainEqual({
      fields: expect.objectContaining({ url: url.href, status: 200, type: 'text/plain', body: 'service is healthy' }),
      message: 'the answer is neither JSON nor SSE: is this the MCP endpoint URL?',
    });
  });
});
