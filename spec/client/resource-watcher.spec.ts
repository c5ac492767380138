import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { CapabilityNotSupportedError, JsonRpcError } from '../../lib/jsonrpc/errors';
import type { ReadResourceResult } from '../../lib/schema/resources';
import { fakeServer, flush } from './fake-server';

const info = { name: 'resource-watcher-spec', version: '1.0.0' };
// These specs cover the handshake era: the revision is pinned, so connect sends initialize first.
const legacy = { ...info, protocolVersion: '2025-11-25' } as const;

function resourceServer(capabilities: Record<string, unknown> = { resources: { subscribe: true } }) {
  const versions = new Map<string, number>();
  const log: string[] = [];
  const server = fakeServer({
    capabilities,
    handlers: {
      'resources/subscribe': (params) => (log.push(`subscribe ${String(params.uri)}`), {}),
      'resources/unsubscribe': (params) => (log.push(`unsubscribe ${String(params.uri)}`), {}),
      'resources/read': (params) => {
        const uri = String(params.uri);
        if (uri === 'test://gone') throw new JsonRpcError(-32002, 'Resource not found');
        log.push(`read ${uri}`);
        return { contents: [{ uri, text: `v${versions.get(uri) ?? 1}` }] };
      },
    },
  });
  const change = (uri: string) => {
    versions.set(uri, (versions.get(uri) ?? 1) + 1);
    server.connection.notify('notifications/resources/updated', { uri });
  };
  return { server, log, change };
}
const textOf = (result: ReadResourceResult) => {
  const first = result.contents[0]!;
  return 'text' in first ? first.text : undefined;
};

describe('watchResource', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('[resources.subscribe] subscribes, reads, and reads again on each update for its URI', async () => {
    const { server, log, change } = resourceServer();
    client = await connect(server.clientTransport, legacy);
    const texts = lastValueFrom(client.watchResource('test://a').pipe(take(3), toArray()));
    await flush();
    change('test://b'); // another URI: ignored
    change('test://a');
    await flush();
    change('test://a');
    expect((await texts).map(textOf)).toEqual(['v1', 'v2', 'v3']);
    await flush();
    expect(log).toEqual([
      'subscribe test://a',
      'read test://a',
      'read test://a',
      'read test://a',
      'unsubscribe test://a',
    ]);
  });

  it('[resources.subscribe-shared] shares one subscription between watchers and unsubscribes after the last', async () => {
    const { server, log, change } = resourceServer();
    client = await connect(server.clientTransport, legacy);
    const first: string[] = [];
    const second: string[] = [];
    const a = client.watchResource('test://a').subscribe((r) => first.push(String(textOf(r))));
    await flush();
    const b = client.watchResource('test://a').subscribe((r) => second.push(String(textOf(r))));
    await flush();
    expect(second).toEqual(['v1']); // the latest contents, at once, without a new read
    change('test://a');
    await flush();
    expect(first).toEqual(['v1', 'v2']);
    expect(second).toEqual(['v1', 'v2']);
    a.unsubscribe();
    await flush();
    expect(log.filter((line) => line.startsWith('unsubscribe'))).toEqual([]);
    b.unsubscribe();
    await flush();
    expect(log).toEqual(['subscribe test://a', 'read test://a', 'read test://a', 'unsubscribe test://a']);
  });

  it('[resources.subscribe-capability] errors with CapabilityNotSupportedError when the server cannot subscribe', async () => {
    const { server, log } = resourceServer({ resources: {} });
    client = await connect(server.clientTransport, legacy);
    await expect(firstValueFrom(client.watchResource('test://a'))).rejects.toBeInstanceOf(CapabilityNotSupportedError);
    expect(log).toEqual([]);
  });

  it('errors every watcher when a read fails, and unsubscribes', async () => {
    const { server, log } = resourceServer();
    client = await connect(server.clientTransport, legacy);
    await expect(firstValueFrom(client.watchResource('test://gone'))).rejects.toMatchObject({ code: -32002 });
    await flush();
    expect(log).toEqual(['subscribe test://gone', 'unsubscribe test://gone']);
  });

  it('completes when the connection closes, without sending unsubscribe', async () => {
    const { server, log } = resourceServer();
    client = await connect(server.clientTransport, legacy);
    const all = lastValueFrom(client.watchResource('test://a').pipe(toArray()));
    await flush();
    server.connection.close('bye');
    expect((await all).map(textOf)).toEqual(['v1']);
    expect(log).toEqual(['subscribe test://a', 'read test://a']);
  });
});
