/**
 * The proxy rows' floor: the least a process between a stdio client and a Streamable HTTP server
 * can do, with nothing of MCP in it. `node relay-floor.js <upstream url>` reads one JSON-RPC
 * message per line on stdin, POSTs it through `node:http` with a keep-alive agent (the session's
 * `Mcp-Session-Id` and protocol version once the server has given them), and writes the messages
 * of the answer (a JSON body, or the `data:` lines of an event stream) to stdout, one per line.
 * Nothing is parsed but the `initialize` result's protocol version; requests from the server, GET
 * streams and cancellation are not relayed. Its calls per second against the direct call's bound
 * what any proxy can keep in this topology on this machine: the same hops, no work of its own.
 */
import { Agent, request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';

function relay(url: string): void {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true });
  const headers: OutgoingHttpHeaders = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };

  /** Writes the messages of an answer as they arrive, one per line; takes the session and version on the way. */
  const answer = (res: IncomingMessage, initialize: boolean) => {
    const session = res.headers['mcp-session-id'];
    if (typeof session === 'string') headers['mcp-session-id'] = session;
    const stream = (res.headers['content-type'] ?? '').includes('text/event-stream');
    let text = '';
    const pass = (message: string) => {
      if (initialize) {
        const version = (JSON.parse(message) as { result?: { protocolVersion?: string } }).result?.protocolVersion;
        if (version !== undefined) headers['mcp-protocol-version'] = version;
      }
      process.stdout.write(`${message}\n`);
    };
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      if (!stream) return;
      // An event ends with a blank line; its `data:` line is the message.
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        const data = event.split('\n').find((line) => line.startsWith('data:'));
        if (data !== undefined) pass(data.slice(5).trim());
      }
    });
    res.on('end', () => {
      if (!stream && text.length > 0) pass(text);
    });
  };

  const post = (line: string) => {
    const initialize = line.includes('"method":"initialize"');
    const req = httpRequest(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { ...headers },
      },
      (res) => answer(res, initialize),
    );
    req.on('error', (error) => process.stderr.write(`relay-floor: ${error.message}\n`));
    req.end(line);
  };

  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    let at: number;
    while ((at = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, at).trim();
      pending = pending.slice(at + 1);
      if (line.length > 0) post(line);
    }
  });
  process.stdin.on('end', () => {
    agent.destroy();
    process.exit(0);
  });
}

if (require.main === module) relay(process.argv[2]!);
