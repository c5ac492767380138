/**
 * `rxmcp connect <url> [--header "Name: value"]...`: an MCP client that speaks stdio (this
 * process's stdin and stdout) reaches a remote Streamable HTTP server through a bridge; when the
 * server asks for authorization, the user signs in with their browser.
 */
import { firstValueFrom } from '../rx/rxjs';
import { createStdioServerTransport } from '../transport/stdio/stdio-server-transport';
import { createStreamableHttpClientTransport } from '../transport/http-client/streamable-http/streamable-http-client-transport';
import type { CliCommand } from './args';
import { bridge } from './bridge';
import { verbose } from './io';
import type { CliIo } from './io';
import { createCliAuth } from './oauth';
import { causeOf, createProgress, progressLogger } from './progress';
import { EXIT } from './errors';

type ConnectCommand = Extract<CliCommand, { kind: 'connect' }>;

/** How long closing waits for the remote session's DELETE before the process exits anyway. */
const CLOSE_WAIT_MS = 3000;

/**
 * Runs `rxmcp connect` until the client closes stdin (exit 0), the user stops it (exit 0) or the
 * server becomes unreachable (exit 1); resolves with the exit code.
 */
export async function runConnect(command: ConnectCommand, io: CliIo): Promise<number> {
  const progress = createProgress(io.stderr);
  const logger = progressLogger(progress, verbose(io) ? 'info' : 'warn');
  const auth = createCliAuth({
    callbackPort: command.callbackPort,
    show: (url) => progress.note(`${command.url.host} asks you to sign in: open ${url.href}`),
  });
  const remote = createStreamableHttpClientTransport({ url: command.url, headers: command.headers, auth, logger });
  const local = createStdioServerTransport({ stdin: io.stdin, stdout: io.stdout, logger });
  progress.note(`bridging stdio to ${command.url.href}`);
  const running = bridge(local, remote);
  const end = await Promise.race([running.ended, io.interrupted.then((signal) => ({ signal }))]);
  const remoteClosed = firstValueFrom(remote.closed$);
  running.close('rxmcp is shutting down');
  await Promise.race([remoteClosed, delay(CLOSE_WAIT_MS)]);
  await auth.close();
  if ('side' in end && end.side === 'server' && end.close.error) {
    progress.error(`${command.url.href}: ${causeOf(end.close.error)}`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
