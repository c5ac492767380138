import { join } from 'node:path';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { TransportError } from '../../../lib/jsonrpc/errors';
import { notification, request } from '../../../lib/jsonrpc/message';
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
const fast = { afterStdinCloseMs: 200, afterSigtermMs: 200 };

describe('createStdioClientTransport', () => {
  let transports: StdioClientTransport[] = [];
  const start = (flags: string[] = [], options: Partial<StdioClientTransportOptions> = {}): StdioClientTransport => {
    const transport = createStdioClientTransport({
      command: process.execPath,
      args: [echoServer, ...flags],
      shutdownTimeoutMs: fast,
      ...options,
    });
    transports.push(transport);
    return transport;
  };
  // Resolves once the child has read and answered a message, so its handlers are installed.
  const ready = async (transport: StdioClientTransport): Promise<void> => {
    const echoed = nextFrames(transport.incoming$, 1);
    transport.send(notification('ready?'));
    await echoed;
  };

  afterEach(async () => {
    for (const transport of transports) {
      if (transport.pid !== undefined && transport.exitCode === null && transport.signalCode === null) {
        process.kill(transport.pid, 'SIGKILL');
      }
    }
    await Promise.all(transports.map((transport) => firstValueFrom(transport.closed$)));
    transports = [];
  });

  it('exchanges messages with the process and exposes its pid', async () => {
    const transport = start();
    expect(transport.pid).toEqual(expect.any(Number));
    const frames = nextFrames(transport.incoming$, 2);
    transport.send(request(1, 'one'));
    transport.send(request(2, 'two'));
    expect(await frames).toEqual([request(1, 'one'), request(2, 'two')]);
  });

  it('closes the child’s stdin first; a child that exits then closes with code 0 and no error', async () => {
    const transport = start();
    await ready(transport);
    const startedAt = Date.now();
    transport.close();
    const close = await firstValueFrom(transport.closed$);
    expect(close).toEqual({ reason: 'closed locally (process exited with code 0)' });
    expect(Date.now() - startedAt).toBeLessThan(fast.afterStdinCloseMs);
    expect(transport.exitCode).toBe(0);
  });

  it('sends SIGTERM to a child that keeps running after its stdin closes', async () => {
    const transport = start(['--ignore-stdin-end']);
    await ready(transport);
    transport.close('done');
    const close = await firstValueFrom(transport.closed$);
    expect(close).toEqual({ reason: 'done (process killed by SIGTERM)' });
    expect(transport.signalCode).toBe('SIGTERM');
  });

  it('sends SIGKILL to a child that ignores SIGTERM', async () => {
    const transport = start(['--ignore-sigterm']);
    await ready(transport);
    const startedAt = Date.now();
    transport.close();
    const close = await firstValueFrom(transport.closed$);
    expect(close.reason).toBe('closed locally (process killed by SIGKILL)');
    expect(close.error).toBeUndefined();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(fast.afterStdinCloseMs + fast.afterSigtermMs - 20);
  });

  it('delivers frames the child writes while it shuts down, then completes incoming$', async () => {
    // The child ends on its own once stdin closes; deadlines long enough that a child slow to
    // start under load is not killed before it has read the frame.
    const transport = start([], { shutdownTimeoutMs: { afterStdinCloseMs: 10_000, afterSigtermMs: 10_000 } });
    const all = lastValueFrom(transport.incoming$.pipe(toArray()));
    transport.send(notification('last words'));
    transport.close();
    expect(await all).toEqual([notification('last words')]);
  });

  it('closes with a TransportError when the child exits on its own with a non-zero code', async () => {
    const transport = start();
    const completed = lastValueFrom(transport.incoming$.pipe(toArray()));
    transport.send(request(1, 'fixture/exit', { code: 3 }));
    const close = await firstValueFrom(transport.closed$);
    expect(close.reason).toBe('process exited with code 3');
    expect(close.error).toBeInstanceOf(TransportError);
    expect(close.error?.message).toMatch(/exited with code 3/);
    await expect(completed).resolves.toEqual([]);
    expect(() => transport.send(notification('after exit'))).not.toThrow();
  });

  it('closes with a TransportError carrying the cause when the command does not exist', async () => {
    const transport = start([], { command: join(__dirname, 'no-such-command-here'), args: [] });
    const completed = lastValueFrom(transport.incoming$.pipe(toArray()));
    transport.send(request(1, 'lost'));
    const close = await firstValueFrom(transport.closed$);
    expect(close.error).toBeInstanceOf(TransportError);
    expect(close.error?.message).toMatch(/no-such-command-here/);
    expect((close.error?.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(close.reason).toMatch(/ENOENT/);
    expect(transport.pid).toBeUndefined();
    await expect(completed).resolves.toEqual([]);
    expect(() => transport.close()).not.toThrow();
  });

  it('delivers the child’s stderr line by line on stderr$ when piped', async () => {
    const transport = start(['--stderr'], { stderr: 'pipe' });
    const lines = lastValueFrom(transport.stderr$.pipe(toArray()));
    await ready(transport);
    transport.close();
    expect(await lines).toEqual(['first line', 'second line \u00fcn\u00efcode \u4e16', 'third line']);
  });

  it('holds stderr lines written before stderr$ has a subscriber', async () => {
    const transport = start(['--stderr'], { stderr: 'pipe' });
    await ready(transport);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = lastValueFrom(transport.stderr$.pipe(toArray()));
    transport.close();
    expect(await lines).toEqual(['first line', 'second line \u00fcn\u00efcode \u4e16', 'third line']);
  });

  it('has an empty stderr$ when stderr is not piped', async () => {
    const transport = start(['--stderr'], { stderr: 'ignore' });
    const lines = lastValueFrom(transport.stderr$.pipe(toArray()));
    transport.close();
    expect(await lines).toEqual([]);
  });

  it('gives the child only the safe default environment plus env', async () => {
    process.env.RXMCP_TEST_SECRET = 'do not leak';
    try {
      const transport = start([], { env: { RXMCP_EXTRA: 'yes', PATH: '/custom/bin' } });
      const answer = nextFrames(transport.incoming$, 1);
      transport.send(request(1, 'fixture/env'));
      const [response] = (await answer) as [{ result: { env: Record<string, string> } }];
      const expected = { ...defaultStdioEnvironment(), RXMCP_EXTRA: 'yes', PATH: '/custom/bin' };
      expect(response.result.env).toEqual(expected);
      expect(response.result.env.RXMCP_TEST_SECRET).toBeUndefined();
    } finally {
      delete process.env.RXMCP_TEST_SECRET;
    }
  });

  it('keeps order under backpressure when sending faster than the child reads', async () => {
    const transport = start();
    const count = 300;
    const payload = 'p'.repeat(16 * 1024);
    const frames = nextFrames(transport.incoming$, count);
    for (let i = 0; i < count; i++) transport.send(notification('bulk', { i, payload }));
    const received = (await frames) as Array<{ params: { i: number } }>;
    expect(received.map((frame) => frame.params.i)).toEqual(Array.from({ length: count }, (_, i) => i));
  });
});

describe('defaultStdioEnvironment', () => {
  it('skips values that look like exported shell functions', () => {
    const saved = process.env.TERM;
    process.env.TERM = '() { :; }; echo pwned';
    try {
      expect(defaultStdioEnvironment().TERM).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.TERM;
      else process.env.TERM = saved;
    }
  });
});
