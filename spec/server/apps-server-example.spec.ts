import { createAppsServer, DICE_VIEW } from '../../examples/apps-server';
import { UI_EXTENSION, UI_MIME_TYPE } from '../../lib/server/apps';
import type { McpClient } from '../../lib/client/client';
import { connected } from '../support/connected';

describe('examples/apps-server', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close('done'));

  it('shows a host with MCP Apps the dice view and the tool only the view calls', async () => {
    client = await connected(createAppsServer(), { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } });
    const tools = await client.promises.listTools();
    expect(tools.map((tool) => [tool.name, tool._meta?.ui])).toEqual([
      ['roll_dice', { resourceUri: DICE_VIEW }],
      ['reroll_dice', { resourceUri: DICE_VIEW, visibility: ['app'] }],
    ]);
    const view = await client.promises.readResource(DICE_VIEW);
    expect(view.contents[0]).toMatchObject({
      mimeType: UI_MIME_TYPE,
      text: expect.stringContaining('<!doctype html>'),
    });
    const result = await client.promises.callTool('roll_dice', { count: 3, sides: 6 });
    const values = (result.structuredContent as { values: number[] }).values;
    expect(values).toHaveLength(3);
    expect(values.every((value) => value >= 1 && value <= 6)).toBe(true);
    expect(result.content[0]).toMatchObject({ type: 'text', text: `Rolled 3d6: ${values.join(', ')}` });
  });

  it('shows a host without MCP Apps a plain dice tool', async () => {
    client = await connected(createAppsServer());
    const tools = await client.promises.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['roll_dice']);
    expect(tools[0]).not.toHaveProperty('_meta');
  });
});
