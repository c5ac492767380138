/**
 * The floor's HTTP client: each request a POST of one JSON-RPC message through `node:http` with a
 * keep-alive agent, the whole body read and `JSON.parse`d; no headers but the body's, no session,
 * no SSE. What a minimal client of a server answering with one JSON body does.
 */
import { Agent, request as httpRequest } from 'node:http';
import type { RequestOptions } from 'node:http';

/** A floor client over HTTP: requests, and closing its sockets. */
export interface FloorHttpClient {
  request(method: string, params: object): Promise<unknown>;
  close(): void;
}

/**
 * A client with its own keep-alive agent (unbounded `maxSockets`, Node's default: with n calls in
 * flight it holds up to n connections, as the SDKs' HTTP clients do).
 */
export function createFloorHttpClient(url: string): FloorHttpClient {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true });
  const base: RequestOptions = { agent, host: target.hostname, port: target.port, path: target.pathname };
  let nextId = 0;
  const request = (method: string, params: object) =>
    new Promise<unknown>((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
      const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
      const req = httpRequest({ ...base, method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve((JSON.parse(text) as { result: unknown }).result));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return { request, close: () => agent.destroy() };
}
