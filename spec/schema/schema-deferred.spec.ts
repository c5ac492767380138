import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import * as definitions from '../../lib/schema/definitions';
import { checkParams, checkResult } from '../../lib/schema/methods';
import { connect, createInMemoryPair, createServer, textResult } from '../../lib/index';

// The schemas of a revision are built on first use, and cached for the process: each case below
// asks for (method, revision) pairs no earlier case of this file asked for, so that a build shows.
describe('schemas the fast paths make unnecessary are never built', () => {
  let built: jest.SpyInstance;
  beforeEach(() => {
    built = jest.spyOn(definitions, 'methodSchema');
  });
  afterEach(() => built.mockRestore());

  const names = () => built.mock.calls.map(([method]) => method as string);
  const client = { name: 'client', version: '1.0.0' };

  it('passes common initialize params and a text result without building their schemas', () => {
    const params = {
      protocolVersion: '2025-03-26',
      capabilities: { roots: { listChanged: true } },
      clientInfo: client,
    };
    expect(checkParams('initialize', '2025-03-26', params)).toEqual({ success: true, data: params });
    const result = { content: [{ type: 'text', text: 'hi' }] };
    expect(checkResult('tools/call', '2025-03-26', result)).toEqual({ success: true, data: result });
    expect(names()).toEqual([]);
  });

  it('builds the schema for params outside the common shapes, and its verdict stands', () => {
    const rich = { protocolVersion: '2024-11-05', capabilities: { sampling: { note: 1 } }, clientInfo: client };
    expect(checkParams('initialize', '2024-11-05', rich)).toEqual({ success: true, data: rich });
    expect(names()).toContain('initialize');
    const wrong = checkParams('tools/call', '2024-11-05', { name: 7 });
    expect(wrong?.success).toBe(false);
  });

  it('still answers undefined for a method the revision lacks, even in a common shape', () => {
    const params = { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: client };
    expect(checkParams('initialize', '2026-07-28', params)).toBeUndefined();
    expect(checkParams('no/such/method', '2025-06-18', {})).toBeUndefined();
  });

  it('builds none for a handshake and a text tool call between an rxmcp client and server', async () => {
    const server = createServer({ name: 'deferred', version: '1.0.0', logging: false });
    server.tool({
      name: 'echo',
      inputSchema: z.object({ text: z.string() }),
      handler: ({ text }) => textResult(text),
    });
    const [clientSide, serverSide] = createInMemoryPair();
    server.connect(serverSide);
    const mcp = await connect(clientSide, { name: 'c', version: '1', protocolVersion: '2025-06-18' });
    const answer = await mcp.promises.callTool('echo', { text: 'hello' });
    expect(answer.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(names().filter((name) => ['initialize', 'notifications/initialized', 'tools/call'].includes(name))).toEqual(
      [],
    );
    const closed = firstValueFrom(mcp.connection.closed$);
    mcp.close();
    await closed;
    server.close();
  });
});
