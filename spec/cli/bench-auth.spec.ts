import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { createResourceServer, InvalidTokenError } from '../../lib/auth/resource-server';
import type { BenchReport } from '../../lib/bench/report';
import type { CliIo } from '../../lib/cli/io';
import { main } from '../../lib/cli/main';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { startAuthorizationServer } from './authorization-server';

// rxmcp bench reaches a protected Streamable HTTP server as rxmcp connect does: with the -H
// headers given, or by signing the user in (authorization code flow, PKCE, loopback redirect) when
// the server answers 401, once for the whole run.

function run(argv: string[], onStderr: (text: string) => void = () => undefined) {
  let err = '';
  const io: CliIo = {
    stdin: new PassThrough(),
    stdout: new PassThrough().resume(),
    stderr: {
      isTTY: false,
      write: (text: string) => {
        err += text;
        onStderr(err);
        return true;
      },
    },
    env: {},
    interrupted: new Promise<string>(() => undefined),
  };
  return main(argv, io).then((code) => ({ code, stderr: err }));
}

const SHORT = ['-t', 'echo', '--args', '{"text":"hi"}', '-d', '200ms', '--cold', '5', '--warmup-max', '200ms'];

describe('rxmcp bench against a protected server', () => {
  let authorization: Awaited<ReturnType<typeof startAuthorizationServer>>;
  let running: RunningStreamableHttpServer;
  let dir: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxmcp-bench-auth-'));
    authorization = await startAuthorizationServer();
    const server = createServer({ name: 'protected', version: '1.0.0' });
    server.tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => textResult(text) });
    running = await startStreamableHttpServer({
      server,
      port: 0,
      auth: (endpoint) =>
        createResourceServer({
          resource: endpoint.href,
          authorizationServers: [authorization.issuer],
          verify: (token) =>
            token === 'token-1'
              ? Promise.resolve({ subject: 'user', scopes: [], claims: {} })
              : Promise.reject(new InvalidTokenError('unknown token')),
        }),
    });
  });
  afterEach(async () => {
    await running.close();
    await authorization.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the -H headers on every request', async () => {
    const json = join(dir, 'report.json');
    const { code } = await run([
      'bench',
      `p=${running.url.href}`,
      '-H',
      'Authorization: Bearer token-1',
      ...SHORT,
      '--reps',
      '1',
      '--json',
      json,
    ]);
    expect(code).toBe(0);
    expect((JSON.parse(readFileSync(json, 'utf8')) as BenchReport).targets[0]!.summary.errors).toEqual({});
    expect(authorization.seen.authorize).toHaveLength(0);
  });

  it('signs the user in once when the server answers 401, for every repetition', async () => {
    const json = join(dir, 'report.json');
    let opened = false;
    const { code, stderr } = await run(
      ['bench', `p=${running.url.href}`, ...SHORT, '--reps', '2', '--json', json],
      (text) => {
        const signIn = /asks you to sign in: open (\S+)\n/.exec(text);
        if (signIn && !opened) {
          opened = true;
          // The user's browser: the authorization server approves and sends it back to the loopback redirect.
          void fetch(signIn[1]!);
        }
      },
    );
    expect(stderr).toMatch(/^rxmcp: p asks you to sign in: open http/m);
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    expect(report.targets[0]!.reps).toHaveLength(2);
    expect(report.targets[0]!.summary.errors).toEqual({});
    expect(authorization.seen.authorize).toHaveLength(1);
    expect(authorization.seen.token).toHaveLength(1);
  });
});
