import { createConnection } from '../../lib/connection/create-connection';
import type { LifecycleInspectionEvent } from '../../lib/connection/connection-api';
import { linkedPair } from '../support/linked-pair';
import { rawPeer } from '../support/raw-peer';

const handlers = { 'tools/list': () => ({ tools: [] }) };

describe('a connection’s persisted lifecycle', () => {
  it('restores a session in another connection: its revision, what the client declared, and serving without a new handshake', async () => {
    const first = linkedPair();
    const server = createConnection({
      transport: first.server,
      role: 'server',
      info: { name: 's', version: '1' },
      handlers,
      capabilities: () => ({ tools: {} }),
    });
    const client = rawPeer(first.client);
    await client.initialize('2025-06-18', { roots: {} });
    const persisted = JSON.parse(JSON.stringify(server.getPersistedSnapshot())) as unknown;
    server.close();

    const second = linkedPair();
    const events: LifecycleInspectionEvent[] = [];
    const restored = createConnection({
      transport: second.server,
      role: 'server',
      info: { name: 's', version: '1' },
      handlers,
      capabilities: () => ({ tools: {} }),
      snapshot: persisted,
      inspect: (event) => events.push(event),
    });
    expect(restored.state).toBe('operating');
    expect(restored.revision).toBe('2025-06-18');
    expect(restored.peerCapabilities).toEqual({ roots: {} });
    const peer = rawPeer(second.client);
    peer.send({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 9, result: { tools: [] } });
    restored.close();
    expect(events.map((event) => event.type)).toContain('@xstate.snapshot');
    expect(
      events
        .filter((event) => event.type === '@xstate.event')
        .map((event) => (event as { event: { type: string } }).event.type),
      // As XState's own actor reports a restored start: the init event, then no handshake at all.
    ).toEqual(['xstate.init', 'local.close']);
  });
});
