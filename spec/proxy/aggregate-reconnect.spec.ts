import { filter, firstValueFrom, VirtualTimeScheduler } from 'rxjs';
import type { McpClient } from '../../lib/client/client';
import type { JsonRpcError } from '../../lib/jsonrpc/errors';
import { aggregate } from '../../lib/proxy/aggregate';
import type { McpProxy } from '../../lib/proxy/proxy';
import type { UpstreamContext } from '../../lib/proxy/upstream-source';
import type { McpServer } from '../../lib/server/server';
import { until } from '../support/until';
import { connect } from '../../lib/client/client';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { clientOf, labelled, SPEC_CLIENT, textOf } from './fixtures';

describe('aggregate of a connector that goes away and comes back', () => {
  let alpha: McpServer;
  let beta: McpServer;
  let betaClient: McpClient;
  let front: McpProxy;
  let downstream: McpClient;
  let scheduler: VirtualTimeScheduler;
  let refusing: boolean;
  let alphaClient: McpClient | undefined;
  /** When (in virtual time) the connector was called, and with what. */
  let calls: Array<{ readonly at: number; readonly context: UpstreamContext }>;

  const listChanged = () =>
    firstValueFrom(
      downstream.connection.notifications$.pipe(
        filter((message) => message.method === 'notifications/tools/list_changed'),
      ),
    );
  const toolNames = async () => (await downstream.promises.listTools()).map((tool) => tool.name).sort();
  /** Runs the backoff timer that is waiting, once the previous attempt has settled. */
  const nextAttempt = async () => {
    await until(() => scheduler.actions.length > 0);
    scheduler.flush();
  };

  beforeEach(async () => {
    alpha = labelled('alpha');
    beta = labelled('beta');
    betaClient = await clientOf(beta);
    scheduler = new VirtualTimeScheduler();
    refusing = false;
    calls = [];
    const connector = {
      connect: async (context: UpstreamContext) => {
        calls.push({ at: scheduler.now(), context });
        if (refusing) throw new Error('connection refused');
        return (alphaClient = await clientOf(alpha));
      },
    };
    front = aggregate(
      { alpha: connector, beta: betaClient },
      { reconnect: { initialDelayMs: 100, maxDelayMs: 300, scheduler } },
    );
    downstream = await clientOf(front);
    await until(() => alphaClient?.state === 'operating');
  });

  afterEach(() => {
    downstream.close();
    front.close();
    betaClient.close();
    alpha.close();
    beta.close();
  });

  it('drops the upstream’s entries, retries with backoff, and brings them back', async () => {
    expect(await toolNames()).toEqual(['alpha_whoami', 'beta_whoami']);
    refusing = true;
    const dropped = listChanged();
    alphaClient!.close();
    await dropped;
    expect(await toolNames()).toEqual(['beta_whoami']);
    expect(textOf(await downstream.promises.callTool('beta_whoami', {}))).toBe('beta');
    const failure = (await downstream.promises.callTool('alpha_whoami', {}).catch((e: unknown) => e)) as JsonRpcError;
    expect(failure.code).toBe(-32000);
    expect(failure.message).toBe(
      'Upstream "alpha" is unavailable: its connection closed; reconnecting (attempt 1 in 100 ms)',
    );
    expect(failure.data).toEqual({ upstream: 'alpha' });

    await nextAttempt(); // at 100: refused
    await nextAttempt(); // at 300: refused
    refusing = false;
    const back = listChanged();
    await nextAttempt(); // at 600 (the wait is capped at 300): connects
    await back;
    expect(calls.map((call) => [call.at, call.context.attempt])).toEqual([
      [0, 0],
      [100, 1],
      [300, 2],
      [600, 3],
    ]);
    expect(await toolNames()).toEqual(['alpha_whoami', 'beta_whoami']);
    expect(textOf(await downstream.promises.callTool('alpha_whoami', {}))).toBe('alpha');
  });

  /** A client of the aggregate speaking `protocolVersion`: the fixture's own for 2025-11-25. */
  const callerOf = async (protocolVersion: '2025-11-25' | '2026-07-28') => {
    if (protocolVersion === '2025-11-25') return downstream;
    const [clientSide, serverSide] = createInMemoryPair();
    front.connect(serverSide);
    return connect(clientSide, { ...SPEC_CLIENT, protocolVersion });
  };

  it.each([
    ['subscribes again upstream after reconnecting, and tells the subscriber to read again', '2025-11-25'],
    ['keeps a 2026-07-28 caller’s listen stream across the reconnection, and tells it to read again', '2026-07-28'],
  ] as const)('%s', async (_name, protocolVersion) => {
    const caller = await callerOf(protocolVersion);
    const reads: unknown[] = [];
    const watching = caller.watchResource('alpha+mem://doc').subscribe((read) => reads.push(read.contents[0]));
    await until(() => reads.length === 1 && [...alpha.sessions].some((s) => s.subscriptions.has('mem://doc')));
    const before = [...alpha.sessions];
    alphaClient!.close();
    await nextAttempt(); // at 100: connects again, a new upstream session
    await until(() => [...alpha.sessions].some((s) => !before.includes(s) && s.subscriptions.has('mem://doc')));
    await until(() => reads.length === 2);
    expect(reads[1]).toMatchObject({ uri: 'alpha+mem://doc', text: 'alpha doc' });
    watching.unsubscribe();
    if (caller !== downstream) caller.close();
    await until(() => [...alpha.sessions].every((s) => s.subscriptions.size === 0));
  });

  it('starts the backoff again after a success', async () => {
    refusing = true;
    alphaClient!.close();
    await nextAttempt(); // at 100: refused
    refusing = false;
    await nextAttempt(); // at 300: connects
    await until(() => alphaClient?.state === 'operating' && calls.length === 3);
    alphaClient!.close();
    await nextAttempt(); // 100 after the close, not 400
    expect(calls.map((call) => call.at)).toEqual([0, 100, 300, 400]);
  });

  it('stops reconnecting when the aggregate closes', async () => {
    refusing = true;
    alphaClient!.close();
    await until(() => scheduler.actions.length > 0);
    front.close();
    scheduler.flush();
    expect(calls).toHaveLength(1);
  });

  it('closes the connection it opened when the aggregate closes, and leaves a given client open', async () => {
    front.close();
    await until(() => alphaClient!.state === 'shutdown');
    expect(betaClient.state).toBe('operating');
  });
});

describe('aggregate closed while its connector is still connecting', () => {
  it('closes the connection when it arrives', async () => {
    const alpha = labelled('alpha');
    let arrive!: (client: McpClient) => void;
    const front = aggregate({ alpha: () => new Promise<McpClient>((resolve) => (arrive = resolve)) });
    front.close();
    const late = await clientOf(alpha);
    arrive(late);
    await until(() => late.state === 'shutdown');
    alpha.close();
  });
});

describe('aggregate of a connector that never connects', () => {
  it('gives up after maxAttempts, and serves the other upstreams meanwhile', async () => {
    const beta = labelled('beta');
    const betaClient = await clientOf(beta);
    const scheduler = new VirtualTimeScheduler();
    let calls = 0;
    const front = aggregate(
      {
        alpha: () => {
          calls++;
          return Promise.reject(new Error('no route'));
        },
        beta: betaClient,
      },
      { reconnect: { initialDelayMs: 10, maxAttempts: 2, scheduler } },
    );
    const downstream = await clientOf(front);
    // Capabilities are assumed for a connector that never connected: its lists are empty for now.
    expect(downstream.serverCapabilities).toMatchObject({ tools: { listChanged: true } });
    for (let attempt = 0; attempt < 2; attempt++) {
      await until(() => scheduler.actions.length > 0);
      scheduler.flush();
    }
    await until(() => calls === 3);
    const failure = (await downstream.promises.callTool('alpha_whoami', {}).catch((e: unknown) => e)) as JsonRpcError;
    expect(failure.message).toBe('Upstream "alpha" is unavailable: gave up reconnecting after 2 attempts');
    expect(textOf(await downstream.promises.callTool('beta_whoami', {}))).toBe('beta');
    expect(scheduler.actions).toHaveLength(0);
    downstream.close();
    front.close();
    betaClient.close();
    beta.close();
  });
});
