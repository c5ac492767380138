import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { META } from '../../lib/connection/modern';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { rawPeer } from '../support/raw-peer';
import type { RawPeer } from '../support/raw-peer';
import { linkedPair } from '../support/linked-pair';

const REVISION = '2026-07-28';
const meta = (extra: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}) => ({
  [META.protocolVersion]: REVISION,
  [META.clientCapabilities]: capabilities,
  [META.clientInfo]: { name: 'spec', version: '1.0.0' },
  ...extra,
});

function exampleServer(): McpServer {
  const server = createServer({ name: 'modern-spec', version: '2.0.0', instructions: 'be brief' });
  server.tool({
    name: 'ask',
    description: 'asks the user for a name, then for a colour',
    inputSchema: z.object({ greeting: z.string() }),
    handler: async ({ greeting }, context) => {
      const name = await firstValueFrom(
        context.elicit({
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        }),
      );
      const colour = await firstValueFrom(
        context.elicit({
          message: 'Colour?',
          requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } },
        }),
      );
      return {
        content: [
          { type: 'text', text: `${greeting} ${String(name.content?.name)} (${String(colour.content?.colour)})` },
        ],
      };
    },
  });
  server.tool({
    name: 'chatty',
    description: 'logs at info and at error',
    handler: (_args, context) => {
      context.log('info', 'starting');
      context.log('error', 'something odd');
      return { content: [{ type: 'text', text: 'done' }] };
    },
  });
  server.tool({
    name: 'needs-sampling',
    description: 'samples',
    handler: async (_args, context) => {
      await firstValueFrom(
        context.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }),
      );
      return { content: [] };
    },
  });
  server.tool({
    name: 'hasty',
    description: 'asks for a name but answers before any comes',
    handler: (_args, context) => {
      context
        .elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
        .subscribe();
      return { content: [{ type: 'text', text: 'no time to wait' }] };
    },
  });
  server.resource({ uri: 'test://a', name: 'a', text: 'A' });
  return server;
}

describe('a server serving a modern revision (2026-07-28) over a connection', () => {
  let server: McpServer;
  let peer: RawPeer;
  let id = 0;
  const call = async (method: string, params: Record<string, unknown>) => {
    const requestId = ++id;
    peer.send({ jsonrpc: '2.0', id: requestId, method, params });
    return peer.nextMatching((frame) => frame.id === requestId);
  };

  beforeEach(() => {
    server = exampleServer();
    const { client, server: end } = linkedPair();
    server.connect(end);
    peer = rawPeer(client);
  });
  afterEach(() => server.close());

  it('[discover] answers server/discover with its versions, capabilities, instructions, identity and caching hints', async () => {
    const { result } = (await call('server/discover', { _meta: meta() })) as { result: Record<string, unknown> };
    expect(result.resultType).toBe('complete');
    expect(result.supportedVersions).toContain(REVISION);
    expect(result.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true } });
    expect(result.instructions).toBe('be brief');
    expect((result._meta as Record<string, unknown>)[META.serverInfo]).toEqual({
      name: 'modern-spec',
      version: '2.0.0',
    });
    expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it('[meta] refuses a request without the required _meta fields with -32602', async () => {
    const missing = (await call('tools/list', { _meta: { [META.protocolVersion]: REVISION } })) as {
      error: { code: number };
    };
    expect(missing.error.code).toBe(-32602);
  });

  it('[version] answers an unsupported revision with -32022 listing the supported ones and echoing the request', async () => {
    const response = (await call('server/discover', { _meta: meta({ [META.protocolVersion]: '1999-01-01' }) })) as {
      id: number;
      error: { code: number; data: { supported: string[]; requested: string } };
    };
    expect(response.id).toBe(id);
    expect(response.error.code).toBe(-32022);
    expect(response.error.data.requested).toBe('1999-01-01');
    expect(response.error.data.supported).toContain(REVISION);
  });

  it('[results] puts resultType and the server identity on every result, caching hints on cacheable ones', async () => {
    const list = (await call('tools/list', { _meta: meta() })) as { result: Record<string, unknown> };
    expect(list.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'public' });
    const read = (await call('resources/read', { uri: 'test://a', _meta: meta() })) as {
      result: Record<string, unknown>;
    };
    expect(read.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    const done = (await call('tools/call', { name: 'chatty', _meta: meta() })) as { result: Record<string, unknown> };
    expect(done.result.resultType).toBe('complete');
    expect(done.result).not.toHaveProperty('ttlMs');
  });

  it('[logging] sends log messages only to a request that asked for them, at its level or above', async () => {
    await call('tools/call', { name: 'chatty', _meta: meta() });
    await call('tools/call', { name: 'chatty', _meta: meta({ [META.logLevel]: 'warning' }) });
    const logs = peer.received.filter((frame) => (frame as { method?: string }).method === 'notifications/message');
    expect(logs).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'something odd' } },
    ]);
  });

  it('[mrtr] asks for input through input-required results and finishes when the retry carries every answer', async () => {
    const capabilities = { elicitation: {} };
    const first = (await call('tools/call', {
      name: 'ask',
      arguments: { greeting: 'hi' },
      _meta: meta({}, capabilities),
    })) as {
      result: { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string };
    };
    expect(first.result.resultType).toBe('input_required');
    const [nameKey] = Object.keys(first.result.inputRequests);
    expect(first.result.inputRequests[nameKey!]!.method).toBe('elicitation/create');

    const second = (await call('tools/call', {
      name: 'ask',
      arguments: { greeting: 'hi' },
      inputResponses: { [nameKey!]: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.result.requestState,
      _meta: meta({}, capabilities),
    })) as { result: { resultType: string; inputRequests: Record<string, unknown>; requestState: string } };
    expect(second.result.resultType).toBe('input_required');
    const [colourKey] = Object.keys(second.result.inputRequests);
    expect(colourKey).not.toBe(nameKey);

    const third = (await call('tools/call', {
      name: 'ask',
      arguments: { greeting: 'hi' },
      inputResponses: { [colourKey!]: { action: 'accept', content: { colour: 'green' } } },
      requestState: second.result.requestState,
      _meta: meta({}, capabilities),
    })) as { result: { resultType: string; content: Array<{ text: string }> } };
    expect(third.result.resultType).toBe('complete');
    expect(third.result.content[0]!.text).toBe('hi Ada (green)');
  });

  it('[mrtr] answers with the value a handler returns at once, though it asked for input on the way', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    try {
      const answer = (await call('tools/call', { name: 'hasty', _meta: meta({}, { elicitation: {} }) })) as {
        id: number;
        result: { resultType: string; content: Array<{ text: string }> };
      };
      expect(answer.result.resultType).toBe('complete');
      expect(answer.result.content[0]!.text).toBe('no time to wait');
      // The round would end the attempt on the scheduler's next task: it must not answer again.
      jest.advanceTimersByTime(1_000);
      await Promise.resolve();
      expect(peer.received.filter((frame) => (frame as { id?: unknown }).id === answer.id)).toHaveLength(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('[mrtr] refuses a tampered requestState and one replayed on another request', async () => {
    const capabilities = { elicitation: {} };
    const first = (await call('tools/call', {
      name: 'ask',
      arguments: { greeting: 'hi' },
      _meta: meta({}, capabilities),
    })) as {
      result: { requestState: string };
    };
    const state = first.result.requestState;
    // The second-to-last character changed (the last one may carry only padding bits): always another one.
    const changed = state.at(-2) === 'A' ? 'B' : 'A';
    const tampered = `${state.slice(0, -2)}${changed}${state.slice(-1)}`;
    expect(tampered).not.toBe(state);
    const forged = (await call('tools/call', {
      name: 'ask',
      arguments: { greeting: 'hi' },
      requestState: tampered,
      _meta: meta({}, capabilities),
    })) as { error: { code: number } };
    expect(forged.error.code).toBe(-32602);
    const replayed = (await call('tools/call', {
      name: 'ask',
      arguments: { greeting: 'other' },
      requestState: state,
      _meta: meta({}, capabilities),
    })) as { error: { code: number; message: string } };
    expect(replayed.error.code).toBe(-32602);
    expect(replayed.error.message).toMatch(/another request/);
  });

  it('[capabilities] answers -32021 naming the capability when the client did not declare it', async () => {
    const response = (await call('tools/call', { name: 'needs-sampling', _meta: meta() })) as {
      error: { code: number; data: { requiredCapabilities: Record<string, unknown> } };
    };
    expect(response.error.code).toBe(-32021);
    expect(response.error.data.requiredCapabilities).toEqual({ sampling: {} });
  });

  it('[listen] acknowledges first, then sends the changes the client opted in to, tagged with the subscription id', async () => {
    const requestId = ++id;
    peer.send({
      jsonrpc: '2.0',
      id: requestId,
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true, promptsListChanged: true }, _meta: meta() },
    });
    const ack = await peer.nextMatching((frame) => frame.method === 'notifications/subscriptions/acknowledged');
    // The server has no prompts, so it does not agree to send their changes.
    expect(ack.params).toEqual({
      notifications: { toolsListChanged: true },
      _meta: { [META.subscriptionId]: requestId },
    });
    server.tool({ name: 'late', description: 'added later', handler: () => ({ content: [] }) });
    const changed = await peer.nextMatching((frame) => frame.method === 'notifications/tools/list_changed');
    expect(changed.params).toEqual({ _meta: { [META.subscriptionId]: requestId } });
    server.close();
    const end = (await peer.nextMatching((frame) => frame.id === requestId)) as { result: Record<string, unknown> };
    expect(end.result.resultType).toBe('complete');
    expect((end.result._meta as Record<string, unknown>)[META.subscriptionId]).toBe(requestId);
  });

  it('[hybrid] still opens a session for a client that initializes after a modern probe', async () => {
    await call('server/discover', { _meta: meta() });
    const init = (await call('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'old', version: '1' },
    })) as { result: { protocolVersion: string } };
    expect(init.result.protocolVersion).toBe('2025-11-25');
  });
});
