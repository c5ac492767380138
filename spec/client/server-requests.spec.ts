import { firstValueFrom, of } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { applyElicitationDefaults, capabilitiesFor } from '../../lib/client/server-requests';
import { progress } from '../../lib/connection/handler-events';
import type { CreateMessageResult } from '../../lib/schema/sampling';
import { fakeServer, flush } from './fake-server';
import { SEP1034_DEFAULTS_FORM } from '../support/elicitation-forms';

const info = { name: 'server-requests-spec', version: '1.0.0' };
// These specs cover the handshake era: the revision is pinned, so connect sends initialize first.
const legacy = { ...info, protocolVersion: '2025-11-25' } as const;
const answer: CreateMessageResult = {
  role: 'assistant',
  content: { type: 'text', text: 'hello' },
  model: 'test-model',
  stopReason: 'endTurn',
};
const samplingParams = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 };

const defaultsForm = SEP1034_DEFAULTS_FORM;

describe('server requests', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('[sampling.handler] answers sampling/createMessage from a Promise handler, with the params it got', async () => {
    const server = fakeServer();
    const seen: unknown[] = [];
    client = await connect(server.clientTransport, {
      ...legacy,
      sampling: async (params) => {
        seen.push(params.maxTokens);
        return answer;
      },
    });
    await expect(firstValueFrom(server.connection.request('sampling/createMessage', samplingParams))).resolves.toEqual(
      answer,
    );
    expect(seen).toEqual([10]);
  });

  it('[sampling.progress] an Observable handler may report progress before its answer', async () => {
    const server = fakeServer();
    client = await connect(server.clientTransport, { ...legacy, sampling: () => of(progress(1, 2), answer) });
    const updates: number[] = [];
    const result = await firstValueFrom(
      server.connection.request('sampling/createMessage', samplingParams, {
        onProgress: (p) => updates.push(p.progress),
      }),
    );
    expect(result).toEqual(answer);
    expect(updates).toEqual([1]);
  });

  it('[sampling.validated] an invalid answer from the handler is not sent: the server gets -32603', async () => {
    const server = fakeServer();
    client = await connect(server.clientTransport, {
      ...legacy,
      sampling: () => ({ role: 'assistant', model: 'm' }) as never,
    });
    await expect(
      firstValueFrom(server.connection.request('sampling/createMessage', samplingParams)),
    ).rejects.toMatchObject({
      code: -32603,
    });
  });

  it('[capabilities.undeclared] without a handler the capability is not declared and the request is refused', async () => {
    const server = fakeServer();
    client = await connect(server.clientTransport, legacy);
    expect(server.connection.peerCapabilities).toEqual({});
    await expect(
      firstValueFrom(server.connection.request('sampling/createMessage', samplingParams)),
    ).rejects.toMatchObject({
      name: 'CapabilityNotSupportedError',
    });
  });

  describe('[elicitation.form]', () => {
    it('treats a request without mode as form mode and applies defaults when asked to', async () => {
      // The receiving side does not validate here: the published JSON schema (and so our zod
      // schema) types content numbers as integers, which refuses the default score 95.5 that the
      // spec's TypeScript types and the conformance suite allow.
      const server = fakeServer({ validateResults: false });
      const modes: unknown[] = [];
      client = await connect(server.clientTransport, {
        ...legacy,
        elicitation: {
          applyDefaults: true,
          handler: (params) => (modes.push(params.mode), { action: 'accept', content: { name: 'Ada' } }),
        },
      });
      const result = await firstValueFrom(server.connection.request('elicitation/create', { ...defaultsForm }));
      expect(modes).toEqual([undefined]);
      expect(result).toEqual({
        action: 'accept',
        content: { name: 'Ada', age: 30, score: 95.5, status: 'active', verified: true },
      });
    });

    it('sends the content as given without applyDefaults', async () => {
      const server = fakeServer();
      client = await connect(server.clientTransport, {
        ...legacy,
        elicitation: () => ({ action: 'accept', content: {} }),
      });
      await expect(
        firstValueFrom(server.connection.request('elicitation/create', { ...defaultsForm })),
      ).resolves.toEqual({
        action: 'accept',
        content: {},
      });
    });

    it('refuses to send content that does not match requestedSchema', async () => {
      const server = fakeServer();
      client = await connect(server.clientTransport, {
        ...legacy,
        elicitation: () => ({ action: 'accept', content: { age: 'old' } }),
      });
      await expect(
        firstValueFrom(server.connection.request('elicitation/create', { ...defaultsForm })),
      ).rejects.toMatchObject({
        code: -32603,
      });
    });

    it('refuses content with a decline', async () => {
      const server = fakeServer();
      client = await connect(server.clientTransport, {
        ...legacy,
        elicitation: () => ({ action: 'decline', content: { name: 'x' } }),
      });
      await expect(
        firstValueFrom(server.connection.request('elicitation/create', { ...defaultsForm })),
      ).rejects.toMatchObject({
        code: -32603,
      });
    });
  });

  describe('[elicitation.url]', () => {
    const urlParams = { mode: 'url', message: 'Sign in', elicitationId: 'e1', url: 'https://example.com/auth' };

    it('hands URL-mode requests to the handler when URL mode is on, and streams completions', async () => {
      const server = fakeServer();
      const urls: unknown[] = [];
      client = await connect(server.clientTransport, {
        ...legacy,
        elicitation: {
          url: true,
          handler: (params) => (urls.push(params.mode === 'url' ? params.url : undefined), { action: 'accept' }),
        },
      });
      await expect(firstValueFrom(server.connection.request('elicitation/create', urlParams))).resolves.toEqual({
        action: 'accept',
      });
      expect(urls).toEqual(['https://example.com/auth']);
      const completed = firstValueFrom(client.elicitationComplete$);
      server.connection.notify('notifications/elicitation/complete', { elicitationId: 'e1' });
      await expect(completed).resolves.toEqual({ elicitationId: 'e1' });
    });

    it('answers -32602 to a URL-mode request when only form mode is on', async () => {
      const server = fakeServer();
      client = await connect(server.clientTransport, { ...legacy, elicitation: () => ({ action: 'accept' }) });
      await expect(firstValueFrom(server.connection.request('elicitation/create', urlParams))).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/url-mode elicitation/),
      });
    });
  });

  it('[roots.list] answers roots/list and announces changes with notifications/roots/list_changed', async () => {
    const server = fakeServer();
    const methods: string[] = [];
    server.connection.notifications$.subscribe((n) => methods.push(n.method));
    client = await connect(server.clientTransport, { ...legacy, roots: [{ uri: 'file:///a', name: 'A' }] });
    expect(server.connection.peerCapabilities).toEqual({ roots: { listChanged: true } });
    await expect(firstValueFrom(server.connection.request('roots/list'))).resolves.toEqual({
      roots: [{ uri: 'file:///a', name: 'A' }],
    });
    client.setRoots([{ uri: 'file:///b' }]);
    await flush();
    expect(methods).toContain('notifications/roots/list_changed');
    await expect(firstValueFrom(server.connection.request('roots/list'))).resolves.toEqual({
      roots: [{ uri: 'file:///b' }],
    });
  });

  it('[roots.none] a client without roots declares none, is not asked for roots/list and tells no server of setRoots', async () => {
    const server = fakeServer();
    const methods: string[] = [];
    server.connection.notifications$.subscribe((n) => methods.push(n.method));
    client = await connect(server.clientTransport, legacy);
    expect(server.connection.peerCapabilities).toEqual({});
    client.setRoots([{ uri: 'file:///b' }]);
    await flush();
    expect(methods).not.toContain('notifications/roots/list_changed');
    // The server may not even ask: the client declared no roots.
    await expect(firstValueFrom(server.connection.request('roots/list'))).rejects.toThrow(
      /did not declare the roots capability/,
    );
  });

  it('[roots.handler] answers each roots/list with a handler, checked like a list', async () => {
    const server = fakeServer();
    let asked = 0;
    client = await connect(server.clientTransport, {
      ...legacy,
      roots: async () => ({ roots: [{ uri: `file:///asked-${++asked}` }] }),
    });
    expect(server.connection.peerCapabilities).toEqual({ roots: { listChanged: true } });
    await expect(firstValueFrom(server.connection.request('roots/list'))).resolves.toEqual({
      roots: [{ uri: 'file:///asked-1' }],
    });
    await expect(firstValueFrom(server.connection.request('roots/list'))).resolves.toEqual({
      roots: [{ uri: 'file:///asked-2' }],
    });
    client.close();
    const invalid = fakeServer();
    client = await connect(invalid.clientTransport, { ...legacy, roots: () => ({ roots: [{ uri: 7 } as never] }) });
    await expect(firstValueFrom(invalid.connection.request('roots/list'))).rejects.toMatchObject({ code: -32603 });
  });

  it('[roots.validated] refuses to send roots that are not valid', async () => {
    const server = fakeServer();
    client = await connect(server.clientTransport, { ...legacy, roots: [{ uri: 42 } as never] });
    await expect(firstValueFrom(server.connection.request('roots/list'))).rejects.toMatchObject({ code: -32603 });
  });
});

describe('capabilitiesFor', () => {
  it('spells out elicitation modes only when URL mode is involved', () => {
    const handler = () => ({ action: 'cancel' as const });
    expect(capabilitiesFor({ elicitation: handler })).toEqual({ elicitation: {} });
    expect(capabilitiesFor({ elicitation: { handler, url: true } })).toEqual({ elicitation: { form: {}, url: {} } });
    expect(capabilitiesFor({ elicitation: { handler, url: true, form: false } })).toEqual({ elicitation: { url: {} } });
  });
});

describe('applyElicitationDefaults', () => {
  it('fills missing fields from defaults without touching given ones or the input', () => {
    const content = { name: 'Ada', verified: false };
    expect(applyElicitationDefaults(defaultsForm.requestedSchema, content)).toEqual({
      name: 'Ada',
      age: 30,
      score: 95.5,
      status: 'active',
      verified: false,
    });
    expect(content).toEqual({ name: 'Ada', verified: false });
    expect(
      applyElicitationDefaults(
        {
          type: 'object',
          properties: { tags: { type: 'array', items: { type: 'string', enum: ['a'] }, default: ['a'] } },
        },
        undefined,
      ),
    ).toEqual({ tags: ['a'] });
  });
});
