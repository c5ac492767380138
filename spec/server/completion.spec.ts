import { of } from 'rxjs';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { toCompleteResult } from '../../lib/server/completion';
import { serve } from './harness';

describe('server completion', () => {
  let server: McpServer;
  afterEach(() => server.close());

  beforeEach(() => {
    server = createServer({ name: 'completion', version: '1.0.0' });
    const many = Array.from({ length: 250 }, (_, i) => `item-${i}`);
    server.prompt({
      name: 'trip',
      description: 'plans a trip',
      arguments: [
        {
          name: 'country',
          required: true,
          complete: (value) => ['France', 'Finland', 'Germany'].filter((c) => c.startsWith(value)),
        },
        {
          name: 'city',
          complete: (value, context) =>
            of(
              (context.arguments.country === 'France' ? ['Paris', 'Lyon'] : ['Berlin']).filter((c) =>
                c.startsWith(value),
              ),
            ),
        },
        { name: 'item', complete: async () => many },
        { name: 'free' },
      ],
      handler: () => ({ messages: [] }),
    });
    server.resourceTemplate({
      uriTemplate: 'repo://{owner}/{name}',
      name: 'repo',
      read: () => ({ contents: [{ text: '' }] }),
      complete: {
        owner: (value) => ({ values: ['alice', 'alan'].filter((o) => o.startsWith(value)), total: 2, hasMore: false }),
      },
    });
  });

  it('[completion.capability] declares completions when a completer is registered', async () => {
    const { client } = await serve(server);
    expect(client.peerCapabilities).toHaveProperty('completions', {});
  });

  it('[completion.prompt] completes a prompt argument', async () => {
    const { call } = await serve(server);
    await expect(
      call('completion/complete', {
        ref: { type: 'ref/prompt', name: 'trip' },
        argument: { name: 'country', value: 'F' },
      }),
    ).resolves.toEqual({ completion: { values: ['France', 'Finland'] } });
  });

  it('[completion.context] passes previously resolved arguments to the completer', async () => {
    const { call } = await serve(server);
    const complete = (country: string) =>
      call('completion/complete', {
        ref: { type: 'ref/prompt', name: 'trip' },
        argument: { name: 'city', value: '' },
        context: { arguments: { country } },
      });
    await expect(complete('France')).resolves.toEqual({ completion: { values: ['Paris', 'Lyon'] } });
    await expect(complete('Germany')).resolves.toEqual({ completion: { values: ['Berlin'] } });
  });

  it('[completion.cap] caps values at 100 with total and hasMore', async () => {
    const { call } = await serve(server);
    const { completion } = (await call('completion/complete', {
      ref: { type: 'ref/prompt', name: 'trip' },
      argument: { name: 'item', value: '' },
    })) as { completion: { values: string[]; total: number; hasMore: boolean } };
    expect(completion.values).toHaveLength(100);
    expect(completion.total).toBe(250);
    expect(completion.hasMore).toBe(true);
  });

  it('[completion.template] completes a resource template variable', async () => {
    const { call } = await serve(server);
    await expect(
      call('completion/complete', {
        ref: { type: 'ref/resource', uri: 'repo://{owner}/{name}' },
        argument: { name: 'owner', value: 'ali' },
      }),
    ).resolves.toEqual({ completion: { values: ['alice'], total: 2, hasMore: false } });
  });

  it('[completion.none] answers no values for an argument without a completer, -32602 for unknown references', async () => {
    const { call } = await serve(server);
    await expect(
      call('completion/complete', {
        ref: { type: 'ref/prompt', name: 'trip' },
        argument: { name: 'free', value: 'x' },
      }),
    ).resolves.toEqual({ completion: { values: [] } });
    await expect(
      call('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      call('completion/complete', {
        ref: { type: 'ref/resource', uri: 'x://{y}' },
        argument: { name: 'y', value: '' },
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("toCompleteResult keeps a completer's own totals and drops non-strings", () => {
    expect(toCompleteResult(undefined)).toEqual({ completion: { values: [] } });
    expect(toCompleteResult(['a', 1, 'b'])).toEqual({ completion: { values: ['a', 'b'] } });
    expect(toCompleteResult({ values: ['a'], total: 10, hasMore: true })).toEqual({
      completion: { values: ['a'], total: 10, hasMore: true },
    });
  });
});
