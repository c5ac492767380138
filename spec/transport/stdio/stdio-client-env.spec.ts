import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { request } from '../../../lib/jsonrpc/message';
import {
  createStdioClientTransport,
  defaultStdioEnvironment,
} from '../../../lib/transport/stdio/stdio-client-transport';
import type {
  StdioClientTransport,
  StdioClientTransportOptions,
} from '../../../lib/transport/stdio/stdio-client-transport';
import { nextFrames } from '../contract';

const echoServer = join(__dirname, '..', '..', 'fixtures', 'stdio-echo-server.js');

describe('createStdioClientTransport env', () => {
  let transport: StdioClientTransport | undefined;

  afterEach(async () => {
    if (transport === undefined) return;
    transport.close();
    await firstValueFrom(transport.closed$);
    transport = undefined;
  });

  /** The environment the child sees when started with `env`. */
  const childEnv = async (env: StdioClientTransportOptions['env']): Promise<Record<string, string>> => {
    transport = createStdioClientTransport({
      command: process.execPath,
      args: [echoServer],
      shutdownTimeoutMs: { afterStdinCloseMs: 200, afterSigtermMs: 200 },
      env,
    });
    const answer = nextFrames(transport.incoming$, 1);
    transport.send(request(1, 'fixture/env'));
    const [response] = (await answer) as [{ result: { env: Record<string, string> } }];
    return response.result.env;
  };

  it('passes process.env on as it is, when given it', async () => {
    process.env.RXMCP_PASSED = 'from the parent';
    try {
      const env = await childEnv(process.env);
      expect(env.RXMCP_PASSED).toBe('from the parent');
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.RXMCP_PASSED;
    }
  });

  it('leaves out variables whose value is undefined, keeping the defaults they name', async () => {
    const defaults = defaultStdioEnvironment();
    expect(defaults.PATH).toEqual(expect.any(String));
    const env = await childEnv({ RXMCP_UNSET: undefined, PATH: undefined, RXMCP_SET: 'yes' });
    expect(env).toEqual({ ...defaults, RXMCP_SET: 'yes' });
    expect('RXMCP_UNSET' in env).toBe(false);
  });
});
