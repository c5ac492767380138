import { connect, createStdioClientTransport } from '../../lib/index';
import type { McpClient } from '../../lib/index';
import { built, killLeftovers, ROOT, runProgram } from './run-example';

// examples/apps-server.ts, built: it serves stdio by default, and says why it stops.
describe('examples/apps-server', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());
  afterAll(killLeftovers);

  it('serves on stdio by default: a client started with it rolls the dice', async () => {
    const transport = createStdioClientTransport({
      command: process.execPath,
      args: [built('apps-server.ts')],
      cwd: ROOT,
      stderr: 'ignore',
    });
    client = await connect(transport, { name: 'spec', version: '1.0.0' });
    const result = await client.promises.callTool('roll_dice', { count: 3, sides: 6 });
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Rolled 3d6: \d, \d, \d$/) }]);
  });

  // Started with no stdin, a stdio server has no client and ends; it now says so instead of exiting silently.
  it('says on stderr that it serves stdio, and that it stopped because stdin ended', async () => {
    const run = await runProgram(built('apps-server.ts'));
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/serving MCP on stdin\/stdout[\s\S]*stopped \(stdin ended\)/);
  });
});
