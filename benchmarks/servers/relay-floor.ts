/**
 * The proxy rows' floor: the least a process between a stdio client and a Streamable HTTP server
 * can do, with nothing of MCP in it. `node relay-floor.js <upstream url>` reads one JSON-RPC
 * message per line on stdin, POSTs it through an undici pool of keep-alive connections (the HTTP
 * client the direct side uses too), with the session's `Mcp-Session-Id` and protocol version once
 * the server has given them, and writes the messages of the answer (a JSON body, or the `data:`
 * lines of an event stream, as they arrive) to stdout, one per line. Nothing is parsed but the
 * `initialize` result's protocol version; requests from the server, GET streams and cancellation
 * are not relayed. Its calls per second against the direct call's bound what any proxy can keep
 * in this topology on this machine: the same hops, no work of its own.
 */
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';

function relay(url: string): void {
  const target = new URL(url);
  const pool = new Pool(target.origin, { headersTimeout: 0, bodyTimeout: 0 });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };

  const pass = (message: string, initialize: boolean) => {
    if (initialize) {
      const version = (JSON.parse(message) as { result?: { protocolVersion?: string } }).result?.protocolVersion;
      if (version !== undefined) headers['mcp-protocol-version'] = version;
    }
    process.stdout.write(`${message}\n`);
  };

  /** Writes the messages of an answer as they arrive; takes the session id on the way. */
  const answer = (response: Dispatcher.ResponseData, initialize: boolean) => {
    const session = response.headers['mcp-session-id'];
    if (typeof session === 'string') headers['mcp-session-id'] = session;
    const stream = String(response.headers['content-type'] ?? '').includes('text/event-stream');
    let text = '';
    response.body.setEncoding('utf8');
    response.body.on('data', (chunk: string) => {
      text += chunk;
      if (!stream) return;
      // An event ends with a blank line; its `data:` line is the message.
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        const data = event.split('\n').find((line) => line.startsWith('data:'));
        if (data !== undefined) pass(data.slice(5).trim(), initialize);
      }
    });
    response.body.on('end', () => {
      if (!stream && text.length > 0) pass(text, initialize);
    });
  };

  const post = (line: string) => {
    const initialize = line.includes('"method":"initialize"');
    pool.request({ path: target.pathname, method: 'POST', headers: { ...headers }, body: line }).then(
      (response) => answer(response, initialize),
      (error: Error) => process.stderr.write(`relay-floor: ${error.message}\n`),
    );
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
    void pool.destroy();
    process.exit(0);
  });
}

if (require.main === module) relay(process.argv[2]!);
