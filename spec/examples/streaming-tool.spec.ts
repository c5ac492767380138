import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { connect, createStreamableHttpClientTransport } from '../../lib/index';
import type { McpClient } from '../../lib/index';
import { eventually } from '../support/until';
import { built, killLeftovers, startProgram, stopProgram } from './run-example';
import type { Running } from './run-example';

// examples/streaming-tool.ts, built, on Streamable HTTP at a free port (PORT=0), reached by URL.
describe('examples/streaming-tool', () => {
  let server: Running | undefined;
  let client: McpClient | undefined;

  beforeEach(async () => {
    server = await startProgram(built('streaming-tool.ts'), [], { env: { PORT: '0' } });
    client = await connect(createStreamableHttpClientTransport({ url: server.url }), {
      name: 'spec',
      version: '1.0.0',
    });
  });
  afterEach(async () => {
    client?.close();
    await stopProgram(server);
  });
  afterAll(killLeftovers);

  it('streams each step as progress, a log message every fifth step, then the result', async () => {
    await lastValueFrom(client!.setLoggingLevel('info'), { defaultValue: undefined });
    const logs = firstValueFrom(client!.logMessages$);
    const events = await lastValueFrom(client!.callTool('count', { to: 5, stepMs: 10 }).pipe(toArray()));
    expect(events.filter((e) => e.type === 'progress')).toEqual(
      [1, 2, 3, 4, 5].map((n) => expect.objectContaining({ progress: n, total: 5, message: `step ${n} of 5` })),
    );
    expect(events.at(-1)).toEqual({
      type: 'result',
      result: expect.objectContaining({ content: [{ type: 'text', text: 'counted to 5' }] }),
    });
    await expect(logs).resolves.toEqual(expect.objectContaining({ level: 'info', data: { reached: 5 } }));
  });

  it('stops the work when the client cancels the call', async () => {
    // Unsubscribing after two progress events sends notifications/cancelled.
    await lastValueFrom(
      client!.callTool('count', { to: 1000, stepMs: 10 }).pipe(
        filter((e) => e.type === 'progress'),
        take(2),
      ),
    );
    await eventually(() => /count: cancelled after \d+ of 1000 steps/.test(server!.stderr()));
    const steps = Number(/cancelled after (\d+)/.exec(server!.stderr())![1]);
    expect(steps).toBeLessThan(1000);
  });
});
