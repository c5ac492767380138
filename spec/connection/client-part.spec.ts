import { firstValueFrom } from 'rxjs';
import { openConnection } from '../../lib/connection/connection';
import { createConnection } from '../../lib/connection/create-connection';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';

// Jest gives each spec file its own modules: here no client connection was made before these tests.
describe("the client's part of a connection", () => {
  const info = { name: 'part', version: '1.0.0' };

  it('is not there for a connection made without createConnection, which refuses a client role', () => {
    const [ours] = createInMemoryPair();
    expect(() => openConnection({ transport: ours, role: 'client', info })).toThrow(
      'client connections are made with createConnection',
    );
  });

  it("refuses a server's initialize() and useModern() without asking for it", async () => {
    const [ours] = createInMemoryPair();
    const server = openConnection({ transport: ours, role: 'server', info });
    await expect(firstValueFrom(server.initialize())).rejects.toThrow(
      'initialize() is for client connections; a server answers initialize',
    );
    expect(() => server.useModern('2026-07-28')).toThrow('useModern() is for client connections');
    server.close();
  });

  it('is loaded by createConnection for a client, which then initializes against a server', async () => {
    const [clientSide, serverSide] = createInMemoryPair();
    const server = openConnection({ transport: serverSide, role: 'server', info });
    const client = createConnection({ transport: clientSide, role: 'client', info });
    const result = await firstValueFrom(client.initialize());
    expect(result.serverInfo).toEqual(info);
    expect(client.state).toBe('operating');
    // Once loaded, a connection made either way finds it.
    const [later] = createInMemoryPair();
    const another = openConnection({ transport: later, role: 'client', info });
    expect(another.state).toBe('initializing');
    for (const connection of [client, server, another]) connection.close();
  });
});
