import { writeFileSync } from 'node:fs';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { startInProcessProxy } from './in-process-proxy';
import type { InProcessProxy } from './in-process-proxy';

// `/readyz` of `rxmcp proxy --http` follows its servers file: an upstream a reload adds is not
// ready until it has connected, and one a reload removes is no longer checked.

/** An HTTP upstream with one tool, on `port` (0: any). */
function upstreamOn(port = 0): Promise<RunningStreamableHttpServer> {
  const server = createServer({ name: 'up', version: '1.0.0' });
  server.tool({ name: 'ping', handler: () => textResult('pong') });
  return startStreamableHttpServer({ server, port });
}

/** Resolves once `check` holds, polling every 50 ms; rejects after 8 s. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 8000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

interface Readiness {
  readonly ready: boolean;
  readonly checks: Record<string, { ready: boolean; detail?: string }>;
}

describe('rxmcp proxy --http: /readyz after a reload', () => {
  const running: RunningStreamableHttpServer[] = [];
  let gateway: InProcessProxy | undefined;
  afterEach(async () => {
    await gateway?.stop();
    await Promise.all(running.splice(0).map((server) => server.close()));
    gateway = undefined;
  });

  it('reports an added upstream not ready until it connects, and forgets a removed one', async () => {
    const alpha = await upstreamOn();
    running.push(alpha);
    // A port nothing listens on yet: beta's server starts there later.
    const reserved = await upstreamOn();
    const betaUrl = reserved.url.href;
    await reserved.close();
    const beta = { url: betaUrl, reconnect: { initialDelayMs: 50, maxDelayMs: 100 } };
    gateway = await startInProcessProxy({ mcpServers: { alpha: { url: alpha.url.href } } }, {}, ['--watch']);
    const readyz = async () => {
      const answer = await fetch(new URL('/readyz', gateway!.url));
      const { ready, checks } = (await answer.json()) as Readiness;
      return { status: answer.status, body: { ready, checks } };
    };
    expect(await readyz()).toEqual({
      status: 200,
      body: { ready: true, checks: { 'upstream:alpha': { ready: true } } },
    });

    writeFileSync(gateway.file, JSON.stringify({ mcpServers: { alpha: { url: alpha.url.href }, beta } }));
    await gateway.stderrMatch(/reloaded .*servers\.json \(\+beta\)/);
    const waiting = await readyz();
    expect(waiting.status).toBe(503);
    expect(waiting.body.checks).toEqual({
      'upstream:alpha': { ready: true },
      'upstream:beta': { ready: false, detail: 'upstream beta is not connected yet' },
    });
    expect(await (await fetch(new URL('/metrics', gateway.url))).text()).toContain(
      'mcp_upstream_up{upstream="beta"} 0\n',
    );

    running.push(await upstreamOn(Number(new URL(betaUrl).port)));
    await eventually('beta to be ready', async () => (await readyz()).status === 200);
    expect((await readyz()).body.checks['upstream:beta']).toEqual({ ready: true });

    writeFileSync(gateway.file, JSON.stringify({ mcpServers: { beta } }));
    await gateway.stderrMatch(/reloaded .*servers\.json \(-alpha\)/);
    expect(await readyz()).toEqual({
      status: 200,
      body: { ready: true, checks: { 'upstream:beta': { ready: true } } },
    });
  });
});
