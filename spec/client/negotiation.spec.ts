import { firstValueFrom, VirtualTimeScheduler } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { LegacyServerError, readDiscoverResult } from '../../lib/client/negotiation';
import { ConnectionClosedError, UnsupportedProtocolVersionError } from '../../lib/jsonrpc/errors';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { rawPeer } from '../support/raw-peer';
import type { RawPeer } from '../support/raw-peer';
import { fakeServer, LEGACY_ONLY } from './fake-server';

const info = { name: 'negotiation-spec', version: '1.0.0' };
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

type Frame = Record<string, unknown> & { id: string | number; method: string; params: Record<string, unknown> };

const discoverResult = (extra: Record<string, unknown> = {}) => ({
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern', version: '2' } },
  ttlMs: 0,
  cacheScope: 'public',
  ...extra,
});

/** The client end, and a raw peer playing the server. */
function pair(): { client: ReturnType<typeof createInMemoryPair>[0]; peer: RawPeer } {
  const [client, server] = createInMemoryPair();
  return { client, peer: rawPeer(server) };
}

/** Answers initialize as a legacy server would. */
async function answerInitialize(peer: RawPeer, protocolVersion = '2025-11-25'): Promise<Frame> {
  const init = (await peer.nextMatching((f) => f.method === 'initialize')) as Frame;
  peer.send({
    jsonrpc: '2.0',
    id: init.id,
    result: { protocolVersion, capabilities: {}, serverInfo: { name: 'legacy', version: '1' } },
  });
  return init;
}

describe('connect: era negotiation', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('[versioning.probe-modern] probes with server/discover and speaks the modern revision a DiscoverResult names', async () => {
    const { client: transport, peer } = pair();
    const connecting = connect(transport, {
      ...info,
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }),
    });
    const probe = (await peer.next()) as Frame;
    expect(probe).toMatchObject({
      method: 'server/discover',
      params: {
        _meta: {
          [PROTOCOL_VERSION]: '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
          'io.modelcontextprotocol/clientInfo': info,
        },
      },
    });
    peer.send({ jsonrpc: '2.0', id: probe.id, result: discoverResult({ instructions: 'hi' }) });
    client = await connecting;
    expect(client.era).toBe('modern');
    expect(client.revision).toBe('2026-07-28');
    expect(client.state).toBe('operating');
    expect(client.serverInfo).toEqual({ name: 'modern', version: '2' });
    expect(client.serverCapabilities).toEqual({ tools: {} });
    expect(client.instructions).toBe('hi');
    // No handshake: the next message is the caller's request, carrying the revision in _meta.
    const listing = client.promises.listTools();
    const list = (await peer.next()) as Frame;
    expect(list.method).toBe('tools/list');
    expect((list.params._meta as Record<string, unknown>)[PROTOCOL_VERSION]).toBe('2026-07-28');
    peer.send({
      jsonrpc: '2.0',
      id: list.id,
      result: { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'public' },
    });
    await expect(listing).resolves.toEqual([]);
  });

  it('[versioning.probe-unsupported-version] retries with a supported version after -32022, and never initializes', async () => {
    const { client: transport, peer } = pair();
    const connecting = connect(transport, info);
    const first = (await peer.next()) as Frame;
    peer.send({
      jsonrpc: '2.0',
      id: first.id,
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28', '2025-11-25'], requested: 'x' },
      },
    });
    const second = (await peer.next()) as Frame;
    expect(second.method).toBe('server/discover');
    expect(second.id).not.toEqual(first.id);
    peer.send({ jsonrpc: '2.0', id: second.id, result: discoverResult() });
    client = await connecting;
    expect(client.era).toBe('modern');
    expect(peer.received.map((f) => (f as Frame).method)).toEqual(['server/discover', 'server/discover']);
  });

  it('[versioning.probe-modern-error] takes -32021 for a modern server and goes on without discovery', async () => {
    const { client: transport, peer } = pair();
    const connecting = connect(transport, info);
    const probe = (await peer.next()) as Frame;
    peer.send({
      jsonrpc: '2.0',
      id: probe.id,
      error: { code: -32021, message: 'Missing capability', data: { requiredCapabilities: {} } },
    });
    client = await connecting;
    expect(client.era).toBe('modern');
    expect(client.serverInfo).toEqual({});
  });

  it.each([
    ['a method-not-found error', { error: { code: -32601, message: 'Method not found' } }],
    ['an invalid-request error', { error: { code: -32600, message: 'not initialized' } }],
    ['a result that is no DiscoverResult', { result: {} }],
  ])('[versioning.probe-legacy] falls back to initialize after %s', async (_what, answer) => {
    const { client: transport, peer } = pair();
    const connecting = connect(transport, info);
    const probe = (await peer.next()) as Frame;
    peer.send({ jsonrpc: '2.0', id: probe.id, ...answer });
    const init = await answerInitialize(peer);
    expect(init.params.protocolVersion).toBe('2025-11-25');
    client = await connecting;
    expect(client.era).toBe('legacy');
    expect(client.revision).toBe('2025-11-25');
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });

  it('[versioning.probe-timeout] falls back to initialize when the probe goes unanswered past discoverTimeoutMs', async () => {
    const scheduler = new VirtualTimeScheduler();
    const { client: transport, peer } = pair();
    const connecting = connect(transport, { ...info, scheduler, discoverTimeoutMs: 3000 });
    const probe = (await peer.next()) as Frame;
    expect(probe.method).toBe('server/discover');
    scheduler.flush();
    expect(scheduler.now()).toBe(3000);
    await answerInitialize(peer);
    client = await connecting;
    expect(client.era).toBe('legacy');
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // A late answer to the probe is a response to nothing in flight: the connection goes on.
    peer.send({ jsonrpc: '2.0', id: probe.id, result: discoverResult() });
    const pinging = client.promises.ping();
    const ping = (await peer.next()) as Frame;
    expect(ping.method).toBe('ping');
    peer.send({ jsonrpc: '2.0', id: ping.id, result: {} });
    await pinging;
    expect(client.state).toBe('operating');
  });

  it('[versioning.pinned-legacy] sends no probe when a handshake revision is pinned', async () => {
    const { client: transport, peer } = pair();
    const connecting = connect(transport, { ...info, protocolVersion: '2025-06-18' });
    const init = await answerInitialize(peer, '2025-06-18');
    expect(init.params.protocolVersion).toBe('2025-06-18');
    client = await connecting;
    expect(client.revision).toBe('2025-06-18');
    expect(peer.received.filter((f) => (f as Frame).method === 'server/discover')).toEqual([]);
  });

  it('[versioning.pinned-modern] rejects with LegacyServerError when 2026-07-28 is pinned and the server is legacy', async () => {
    const { client: transport, peer } = pair();
    const connecting = connect(transport, { ...info, protocolVersion: '2026-07-28' });
    const probe = (await peer.next()) as Frame;
    peer.send({ jsonrpc: '2.0', id: probe.id, error: { code: -32601, message: 'Method not found' } });
    await expect(connecting).rejects.toBeInstanceOf(LegacyServerError);
    await expect(connecting).rejects.toThrow(/2026-07-28.*error -32601/);
    expect(peer.received.filter((f) => (f as Frame).method === 'initialize')).toEqual([]);
  });

  it('[versioning.no-shared-version] rejects with UnsupportedProtocolVersionError when a modern server shares no revision', async () => {
    const { client: transport, peer } = pair();
    const connecting = connect(transport, info);
    const probe = (await peer.next()) as Frame;
    peer.send({
      jsonrpc: '2.0',
      id: probe.id,
      error: { code: -32022, message: 'Unsupported', data: { supported: ['2099-01-01'], requested: '2026-07-28' } },
    });
    await expect(connecting).rejects.toBeInstanceOf(UnsupportedProtocolVersionError);
    await expect(connecting).rejects.toThrow(/2099-01-01/);
  });

  it('[versioning.shared-handshake-version] initializes with the handshake revision a modern error names when no modern one is shared', async () => {
    const { client: transport, peer } = pair();
    const connecting = connect(transport, info);
    const probe = (await peer.next()) as Frame;
    peer.send({
      jsonrpc: '2.0',
      id: probe.id,
      error: { code: -32022, message: 'Unsupported', data: { supported: ['2025-06-18'], requested: '2026-07-28' } },
    });
    const init = await answerInitialize(peer, '2025-06-18');
    expect(init.params.protocolVersion).toBe('2025-06-18');
    client = await connecting;
    expect(client.revision).toBe('2025-06-18');
  });

  it('[versioning.probe-closed] rejects with ConnectionClosedError when the transport closes during the probe', async () => {
    const [transport, server] = createInMemoryPair();
    const connecting = connect(transport, info);
    await firstValueFrom(server.incoming$);
    server.close('server went away');
    await expect(connecting).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('[versioning.dual-era] speaks 2026-07-28 with a dual-era rxmcp server, and the handshake with a legacy one', async () => {
    const modern = fakeServer({ capabilities: { tools: {} }, handlers: { 'tools/list': () => ({ tools: [] }) } });
    client = await connect(modern.clientTransport, info);
    expect([client.era, client.revision]).toEqual(['modern', '2026-07-28']);
    await expect(client.promises.listTools()).resolves.toEqual([]);
    client.close();
    const legacy = fakeServer({
      supportedRevisions: LEGACY_ONLY,
      capabilities: { tools: {} },
      handlers: { 'tools/list': () => ({ tools: [] }) },
    });
    client = await connect(legacy.clientTransport, info);
    expect([client.era, client.revision]).toEqual(['legacy', '2025-11-25']);
    await expect(client.promises.listTools()).resolves.toEqual([]);
  });
});

describe('readDiscoverResult', () => {
  it('reads serverInfo from _meta, or from the top level where older servers put it', () => {
    expect(readDiscoverResult(discoverResult())).toEqual({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      serverInfo: { name: 'modern', version: '2' },
    });
    expect(
      readDiscoverResult({
        supportedVersions: ['2026-07-28'],
        capabilities: {},
        serverInfo: { name: 's', version: '1' },
      }),
    ).toMatchObject({
      serverInfo: { name: 's', version: '1' },
    });
  });

  it.each([
    {},
    { supportedVersions: 'x', capabilities: {} },
    { supportedVersions: [1], capabilities: {} },
    { supportedVersions: [] },
  ])('refuses %j', (result) => {
    expect(readDiscoverResult(result)).toBeUndefined();
  });
});
