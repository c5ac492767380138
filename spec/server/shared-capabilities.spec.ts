import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { ClientRevision } from '../../lib/client/client-api';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import type { ServerSession } from '../../lib/server/server-context';
import { capabilitiesForRevision } from '../../lib/server/tasks/task-capabilities';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';

/** The capabilities a session declared, as its persisted state records them. */
const declaredBy = (session: ServerSession) => session.persist().declared;

describe('capabilities shared by the sessions of a definition', () => {
  const clients: McpClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  async function open(server: McpServer, protocolVersion: ClientRevision = '2025-11-25'): Promise<ServerSession> {
    const [clientSide, serverSide] = createInMemoryPair();
    const session = server.connect(serverSide);
    clients.push(await connect(clientSide, { name: 'caps', version: '1.0.0', protocolVersion }));
    return session;
  }

  it('gives sessions started alike one capabilities object, and a new one once a kind is registered', async () => {
    const server = createServer({ name: 's', version: '1.0.0' });
    server.tool({ name: 't', handler: () => ({ content: [] }) });
    const first = await open(server);
    const second = await open(server);
    expect(declaredBy(first)).toEqual({ tools: { listChanged: true }, logging: {} });
    expect(declaredBy(second)).toBe(declaredBy(first));
    server.prompt({ name: 'p', handler: () => ({ messages: [] }) });
    const third = await open(server);
    expect(declaredBy(third)).toEqual({ tools: { listChanged: true }, prompts: { listChanged: true }, logging: {} });
    // What the earlier sessions declared is left as it was.
    expect(declaredBy(first)).toEqual({ tools: { listChanged: true }, logging: {} });
    expect(clients[2]!.serverCapabilities.prompts).toEqual({ listChanged: true });
    expect(clients[0]!.serverCapabilities.prompts).toBeUndefined();
  });

  it('derives them again when an extension is served', async () => {
    const server = createServer({ name: 's', version: '1.0.0' });
    const before = await open(server);
    server.extension({ id: 'com.example/thing', settings: { level: 1 } });
    const after = await open(server);
    expect(declaredBy(before)).toEqual({ logging: {} });
    expect(declaredBy(after)).toEqual({ logging: {}, extensions: { 'com.example/thing': { level: 1 } } });
  });

  it('gives server.capabilities() a copy of its own to change', () => {
    const server = createServer({ name: 's', version: '1.0.0' });
    const mine = server.capabilities() as Record<string, unknown>;
    mine.tools = { changed: true };
    expect(server.capabilities()).toEqual({ logging: {} });
  });
});

describe('capabilitiesForRevision', () => {
  it('gives back the very object when a handshake revision needs nothing taken out', () => {
    const capabilities = { tools: { listChanged: true }, logging: {} };
    expect(capabilitiesForRevision(capabilities, '2025-06-18')).toBe(capabilities);
  });

  it('takes out what a handshake revision lacks, leaving the given object alone', () => {
    const capabilities = { tasks: { list: {} }, extensions: { 'io.modelcontextprotocol/tasks': {}, other: {} } };
    const declared = capabilitiesForRevision(capabilities, '2025-06-18');
    expect(declared).toEqual({ extensions: { other: {} } });
    expect(capabilities.tasks).toEqual({ list: {} });
    expect(capabilitiesForRevision(capabilities, '2025-11-25')).toEqual({
      tasks: { list: {} },
      extensions: { other: {} },
    });
  });
});
