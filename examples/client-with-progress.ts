/**
 * A client: connects to a server, calls one tool and prints its progress and log messages as they
 * come, then its result.
 *
 *   node dist/examples/client-with-progress.js <URL | command> <tool> ['<JSON arguments>']
 *   node dist/examples/client-with-progress.js http://127.0.0.1:3000/mcp count '{"to":5}'
 *   node dist/examples/client-with-progress.js "node dist/examples/stdio-server.js" add '{"a":2,"b":40}'
 *
 * A URL is reached over Streamable HTTP; anything else is a command line to start, spoken to over
 * its stdin and stdout. The exit code is 1 when the call fails or its result is an error.
 */
import { lastValueFrom, tap } from 'rxjs';
import { connect, createStdioClientTransport, createStreamableHttpClientTransport, toolResult } from 'rxmcp';

async function main(): Promise<number> {
  const [target, tool, args = '{}'] = process.argv.slice(2);
  if (target === undefined || tool === undefined) {
    process.stderr.write('usage: client-with-progress <URL | command> <tool> [JSON arguments]\n');
    return 2;
  }
  // Pick the transport: Streamable HTTP for a URL, else start the command and use stdio.
  const [command = '', ...commandArgs] = target.split(' ');
  const transport = /^https?:\/\//.test(target)
    ? createStreamableHttpClientTransport({ url: target })
    : createStdioClientTransport({ command, args: commandArgs });
  // connect() runs the handshake and resolves once the client may call the server.
  const client = await connect(transport, { name: 'client-with-progress', version: '1.0.0' });
  try {
    // The server's log messages arrive on their own stream; ask for those at info and above.
    client.logMessages$.subscribe((message) => console.log(`log ${message.level}:`, JSON.stringify(message.data)));
    await lastValueFrom(client.setLoggingLevel('info'));
    // A call is a cold Observable of events: progress events, then the result. Subscribing sends
    // the request; unsubscribing before the result would cancel it.
    const call = client.callTool(tool, JSON.parse(args) as Record<string, unknown>).pipe(
      tap((event) => {
        if (event.type === 'progress')
          console.log(`progress ${event.progress}/${event.total ?? '?'} ${event.message ?? ''}`);
      }),
      toolResult(), // keeps the result alone
    );
    const result = await lastValueFrom(call);
    for (const part of result.content) console.log(part.type === 'text' ? `result: ${part.text}` : part);
    return result.isError ? 1 : 0;
  } finally {
    client.close();
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`client-with-progress: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
