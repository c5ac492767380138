import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { flush, serve } from './harness';

describe('server prompts', () => {
  let server: McpServer;
  afterEach(() => server.close());

  beforeEach(() => {
    server = createServer({ name: 'prompts', version: '1.0.0' });
    server.prompt({
      name: 'greet',
      title: 'Greeting',
      description: 'Greets someone',
      arguments: [
        { name: 'who', description: 'whom to greet', required: true },
        { name: 'tone', title: 'Tone' },
      ],
      handler: ({ who, tone }) => ({
        description: 'a greeting',
        messages: [
          { role: 'user', content: { type: 'text', text: `Hello ${who}${tone ? ` (${tone})` : ''}` } },
          { role: 'assistant', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } },
          { role: 'user', content: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' } },
          { role: 'user', content: { type: 'resource', resource: { uri: 'test://r', text: 'r' } } },
          { role: 'user', content: { type: 'resource_link', uri: 'test://r', name: 'r' } },
        ],
      }),
    });
  });

  it('[prompts.list] lists prompts with their arguments (completers left out)', async () => {
    const { call, client } = await serve(server);
    expect(client.peerCapabilities).toMatchObject({ prompts: { listChanged: true } });
    expect(await call('prompts/list')).toEqual({
      prompts: [
        {
          name: 'greet',
          title: 'Greeting',
          description: 'Greets someone',
          arguments: [
            { name: 'who', description: 'whom to greet', required: true },
            { name: 'tone', title: 'Tone' },
          ],
        },
      ],
    });
  });

  it('[prompts.get] renders messages of every content type with required and optional arguments', async () => {
    const { call } = await serve(server);
    const result = await call('prompts/get', { name: 'greet', arguments: { who: 'Ada', tone: 'warm' } });
    expect(result.description).toBe('a greeting');
    expect((result.messages as Array<{ content: { type: string; text?: string } }>).map((m) => m.content.type)).toEqual(
      ['text', 'image', 'audio', 'resource', 'resource_link'],
    );
    expect((result.messages as Array<{ content: { text?: string } }>)[0]!.content.text).toBe('Hello Ada (warm)');
    const minimal = await call('prompts/get', { name: 'greet', arguments: { who: 'Bo' } });
    expect((minimal.messages as Array<{ content: { text?: string } }>)[0]!.content.text).toBe('Hello Bo');
  });

  it('[prompts.arguments] answers -32602 naming a missing required argument, and an unknown prompt', async () => {
    const { call } = await serve(server);
    await expect(call('prompts/get', { name: 'greet', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('arguments.who'),
    });
    await expect(call('prompts/get', { name: 'nope' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('nope'),
    });
  });

  it('[revisions.downgrade] sends older clients only the content and fields their revision has', async () => {
    const { call } = await serve(server, { protocolVersion: '2024-11-05' });
    const { prompts } = (await call('prompts/list')) as {
      prompts: Array<{ title?: string; arguments: Array<Record<string, unknown>> }>;
    };
    expect(prompts[0]!.title).toBeUndefined();
    expect(prompts[0]!.arguments[1]).toEqual({ name: 'tone' });
    const result = await call('prompts/get', { name: 'greet', arguments: { who: 'Ada' } });
    expect((result.messages as Array<{ content: { type: string } }>).map((m) => m.content.type)).toEqual([
      'text',
      'image',
      'text',
      'resource',
      'text',
    ]);
  });

  it('[errors.internal] answers a throwing prompt with -32603 naming the prompt and the error, and keeps serving', async () => {
    server.prompt({
      name: 'broken',
      description: 'fails',
      handler: () => Promise.reject(new Error('template store down')),
    });
    const { call } = await serve(server);
    await expect(call('prompts/get', { name: 'broken' })).rejects.toMatchObject({
      code: -32603,
      message: 'Prompt broken failed: template store down',
    });
    await expect(call('prompts/get', { name: 'greet', arguments: { who: 'x' } })).resolves.toHaveProperty('messages');
  });

  it('[prompts.list-changed] notifies when a prompt is added or removed', async () => {
    const served = await serve(server);
    const later = server.prompt({ name: 'later', description: 'added later', handler: () => ({ messages: [] }) });
    later.remove();
    await flush();
    expect(served.received('notifications/prompts/list_changed')).toHaveLength(2);
  });
});
