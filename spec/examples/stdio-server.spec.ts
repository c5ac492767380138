import { firstValueFrom, lastValueFrom } from 'rxjs';
import { connect, createStdioClientTransport } from '../../lib/index';
import type { McpClient } from '../../lib/index';
import { built, killLeftovers, ROOT } from './run-example';

// examples/stdio-server.ts, built, started by a client over stdio as a desktop app would.
describe('examples/stdio-server', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());
  afterAll(killLeftovers);

  it('answers its tool, resource and prompt over stdio, and exits when the client closes', async () => {
    const transport = createStdioClientTransport({
      command: process.execPath,
      args: [built('stdio-server.ts')],
      cwd: ROOT,
      stderr: 'pipe',
    });
    // Its note for a human goes to stderr, never to stdout (which carries protocol messages only).
    const note = firstValueFrom(transport.stderr$);
    client = await connect(transport, { name: 'spec', version: '1.0.0' });
    expect(client.serverInfo.name).toBe('stdio-example');
    await expect(note).resolves.toMatch(/serving MCP on stdin\/stdout/);

    const added = await client.promises.callTool('add', { a: 2, b: 40 });
    expect(added.content).toEqual([{ type: 'text', text: '42' }]);

    const motd = await lastValueFrom(client.readResource('example://motd'));
    expect(motd.contents).toEqual([
      expect.objectContaining({ uri: 'example://motd', text: expect.stringMatching(/\S/) }),
    ]);

    const prompt = await lastValueFrom(client.getPrompt('explain', { topic: 'Observables' }));
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Explain Observables to a newcomer.' });

    const closed = lastValueFrom(transport.closed$);
    client.close();
    client = undefined;
    // Closing ends the server process (its stdin ends): closed$ completes.
    await expect(closed).resolves.toEqual(expect.objectContaining({ reason: expect.any(String) }));
  });
});
