import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Subject } from 'rxjs';
import type { McpClient } from '../../lib/client/client';
import type { Upstream } from '../../lib/cli/config';
import { closeUpstreams, describeTransport, startUpstream } from '../../lib/cli/upstreams';
import type { Transport, TransportClose } from '../../lib/transport/transport';

const options = {
  info: { name: 'spec', version: '1.0.0' },
  logger: { error() {}, warn() {}, info() {} },
  stderrLine() {},
};

/** A client stub whose transport closes only when the test says so (as a server process exits). */
function stubClient() {
  const closed = new Subject<TransportClose>();
  const reasons: string[] = [];
  const client = { close: (reason?: string) => void reasons.push(reason ?? '') } as unknown as McpClient;
  const transport = { closed$: closed.asObservable() } as unknown as Transport;
  return {
    client,
    transport,
    reasons,
    closeTransport: () => (closed.next({ reason: 'closed' }), closed.complete()),
  };
}

describe('closeUpstreams', () => {
  afterEach(() => jest.useRealTimers());

  it('closes every client and resolves once all their transports have closed', async () => {
    const a = stubClient();
    const b = stubClient();
    let done = false;
    const closing = closeUpstreams([a, b]).then(() => (done = true));
    expect(a.reasons).toEqual(['rxmcp is shutting down']);
    expect(b.reasons).toEqual(['rxmcp is shutting down']);
    a.closeTransport();
    await Promise.resolve();
    expect(done).toBe(false);
    b.closeTransport();
    await closing;
    expect(done).toBe(true);
  });

  it('stops waiting for a transport that never closes after withinMs', async () => {
    jest.useFakeTimers();
    const stuck = stubClient();
    let done = false;
    const closing = closeUpstreams([stuck], 6000).then(() => (done = true));
    await jest.advanceTimersByTimeAsync(5999);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await closing;
    expect(done).toBe(true);
  });
});

describe('startUpstream', () => {
  it('resolves with the cause when the command does not exist (never rejects)', async () => {
    const upstream: Upstream = {
      kind: 'stdio',
      name: 'missing',
      command: 'rxmcp-spec-nonexistent',
      args: [],
      env: {},
      cwd: undefined,
    };
    await expect(startUpstream(upstream, options)).resolves.toEqual({
      ok: false,
      upstream,
      cause: 'spawn rxmcp-spec-nonexistent ENOENT',
    });
  });

  it('resolves with the cause when a URL upstream cannot be reached', async () => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    probe.close();
    await once(probe, 'close');
    const upstream: Upstream = {
      kind: 'http',
      name: 'gone',
      url: new URL(`http://127.0.0.1:${port}/mcp`),
      headers: {},
    };
    const started = await startUpstream(upstream, options);
    expect(started).toMatchObject({ ok: false, cause: expect.stringContaining('ECONNREFUSED') });
  });

  it('describes how each kind of upstream is reached', () => {
    const url = new URL('http://127.0.0.1:1/mcp');
    expect(describeTransport({ kind: 'stdio', name: 'a', command: 'x', args: [], env: {}, cwd: undefined })).toBe(
      'stdio',
    );
    expect(describeTransport({ kind: 'http', name: 'a', url, headers: {} })).toBe('http http://127.0.0.1:1/mcp');
    expect(describeTransport({ kind: 'sse', name: 'a', url, headers: {} })).toBe('sse http://127.0.0.1:1/mcp');
  });
});
