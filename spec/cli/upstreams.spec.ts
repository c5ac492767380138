import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, Subject } from 'rxjs';
import type { McpClient } from '../../lib/client/client';
import type { Upstream } from '../../lib/cli/config';
import { closeUpstreams, describeTransport, startUpstream, transportFor } from '../../lib/cli/upstreams';
import type { Started } from '../../lib/cli/upstreams';
import type { Transport, TransportClose } from '../../lib/transport/transport';

/** Whether a process runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once `condition` holds, checking each turn of the event loop, for at most 10 s of real time. */
async function waitFor(condition: () => boolean): Promise<void> {
  const start = process.hrtime.bigint();
  while (!condition()) {
    if (process.hrtime.bigint() - start > 10_000_000_000n) throw new Error('condition never held');
    await new Promise((done) => setImmediate(done));
  }
}

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

  it('gives up on an upstream that does not answer within startTimeoutMs, and stops its process', async () => {
    const pidFile = join(tmpdir(), `rxmcp-spec-silent-${process.pid}.pid`);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime'] });
    try {
      const silent: Upstream = {
        kind: 'stdio',
        name: 'silent',
        command: process.execPath,
        // Reads nothing, answers nothing, and outlives the end of its stdin.
        args: [
          '-e',
          `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`,
        ],
        env: {},
        cwd: undefined,
      };
      let started: Started | undefined;
      void startUpstream(silent, { ...options, startTimeoutMs: 30_000 }).then((s) => (started = s));
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
      await jest.advanceTimersByTimeAsync(29_999);
      expect(started).toBeUndefined();
      await jest.advanceTimersByTimeAsync(1);
      await waitFor(() => started !== undefined);
      expect(started).toEqual({ ok: false, upstream: silent, cause: 'did not answer within 30 s' });
      // Closing ends its stdin, waits 2 s for it to exit, then sends SIGTERM.
      await jest.advanceTimersByTimeAsync(2000);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      await waitFor(() => !alive(pid));
    } finally {
      jest.useRealTimers();
      rmSync(pidFile, { force: true });
    }
  });

  it("shows a spawned server's stray stdout lines whatever the logger's level, naming the server", async () => {
    const warned: string[] = [];
    const logged: unknown[] = [];
    const transport = transportFor(
      {
        kind: 'stdio',
        name: 'noisy',
        command: process.execPath,
        args: ['-e', "console.log('Listening on stdio'); setTimeout(() => {}, 10_000)"],
        env: {},
        cwd: undefined,
      },
      {
        ...options,
        logger: {
          error: (...data: unknown[]) => logged.push(data),
          warn: (...data: unknown[]) => logged.push(data),
          info() {},
        },
        strayLine: (name, warning) => warned.push(`${name}: ${warning}`),
      },
    );
    try {
      await waitFor(() => warned.length > 0);
    } finally {
      transport.close();
      await firstValueFrom(transport.closed$);
    }
    expect(warned).toEqual([
      expect.stringMatching(
        /^noisy: the MCP server \(.+\) wrote a line to stdout that is not an MCP message: "Listening on stdio"\./,
      ),
    ]);
    expect(logged).toEqual([]);
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
