/**
 * The floor: JSON-RPC with nothing but JSON.parse and JSON.stringify. It answers initialize,
 * tools/call of `echo` and `large`, and nothing else. Served over stdio (newline-delimited) when
 * run, or with `--http` by a bare `node:http` server on a free loopback port (its URL printed on the
 * first line; it ends when its stdin closes) that answers a POST of one request with one JSON body:
 * no sessions, no headers checked, no SSE, so the same server stands for every HTTP transport.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LARGE_TEXT } from '../workload';
import { endWithStdin, keepConnections } from './process';

type Message = { id?: number | string; method?: string; params?: { name?: string; arguments?: { text?: string } } };

/** Answers one parsed request; returns the response object, or undefined for a notification. */
export function floorAnswer(message: Message): object | undefined {
  if (message.id === undefined) return undefined;
  if (message.method === 'initialize') {
    return {
      jsonrpc: '2.0',
      id: message.id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'floor', version: '1' },
      },
    };
  }
  const text = message.params?.name === 'large' ? LARGE_TEXT : (message.params?.arguments?.text ?? '');
  return { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }] } };
}

function serveStdio(): void {
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffer += chunk;
    let at: number;
    let out = '';
    while ((at = buffer.indexOf('\n')) >= 0) {
      const answer = floorAnswer(JSON.parse(buffer.slice(0, at)) as Message);
      buffer = buffer.slice(at + 1);
      if (answer) out += JSON.stringify(answer) + '\n';
    }
    if (out) process.stdout.write(out);
  });
  process.stdin.on('end', () => process.exit(0));
}

function serveHttp(): void {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const answer = floorAnswer(JSON.parse(body) as Message);
      if (!answer) return void res.writeHead(202).end();
      const out = JSON.stringify(answer);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    });
  });
  keepConnections(server);
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
    endWithStdin();
  });
}

if (require.main === module) {
  if (process.argv.includes('--http')) serveHttp();
  else serveStdio();
}
