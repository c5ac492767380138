import { planToolHeaders, toolCallHeaders } from '../../lib/client/tool-headers';
import { modernPeer } from './modern-peer';
import type { ModernPeer } from './modern-peer';

const schema = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('planToolHeaders', () => {
  it('[x-mcp-header.valid] reads annotations on string, integer and boolean properties, nested through properties', () => {
    const plan = planToolHeaders(
      schema({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        priority: { type: 'integer', 'x-mcp-header': 'Priority' },
        options: { type: 'object', properties: { dryRun: { type: ['boolean', 'null'], 'x-mcp-header': 'Dry-Run' } } },
        query: { type: 'string' },
      }),
    );
    expect(plan).toEqual({
      params: [
        { path: ['region'], name: 'Region', type: 'string' },
        { path: ['priority'], name: 'Priority', type: 'integer' },
        { path: ['options', 'dryRun'], name: 'Dry-Run', type: 'boolean' },
      ],
    });
  });

  it('[x-mcp-header.none] has nothing to mirror without annotations, even with a property named x-mcp-header', () => {
    expect(planToolHeaders(schema({ 'x-mcp-header': { type: 'string' } }))).toEqual({ params: [] });
    expect(planToolHeaders(undefined)).toEqual({ params: [] });
    expect(planToolHeaders(schema({ a: { type: 'string', default: { 'x-mcp-header': 'Data' } } }))).toEqual({
      params: [],
    });
  });

  // The invalid tools of the conformance scenario, and the reachability rules of the spec.
  it.each([
    ['empty', schema({ v: { type: 'string', 'x-mcp-header': '' } }), /non-empty/],
    ['not a string', schema({ v: { type: 'string', 'x-mcp-header': 7 } }), /non-empty string/],
    ['on an object', schema({ data: { type: 'object', 'x-mcp-header': 'Data' } }), /not a string, integer or boolean/],
    [
      'on an array',
      schema({ items: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Items' } }),
      /not a string/,
    ],
    ['on null', schema({ nil: { type: 'null', 'x-mcp-header': 'Nil' } }), /not a string/],
    ['on a number', schema({ score: { type: 'number', 'x-mcp-header': 'Score' } }), /not a string/],
    ['without a type', schema({ any: { 'x-mcp-header': 'Any' } }), /not a string/],
    [
      'duplicated',
      schema({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'Region' } }),
      /more than once/,
    ],
    [
      'duplicated in another case',
      schema({ a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } }),
      /more than once/,
    ],
    ['with a space', schema({ v: { type: 'string', 'x-mcp-header': 'My Region' } }), /not a valid header name/],
    ['with a colon', schema({ v: { type: 'string', 'x-mcp-header': 'Region:Primary' } }), /not a valid header name/],
    ['non-ASCII', schema({ v: { type: 'string', 'x-mcp-header': 'Région' } }), /not a valid header name/],
    [
      'with a control character',
      schema({ v: { type: 'string', 'x-mcp-header': 'Region\t1' } }),
      /not a valid header name/,
    ],
    [
      'under items',
      schema({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }),
      /not on a property reachable/,
    ],
    [
      'under anyOf',
      schema({}, { anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }),
      /not on a property reachable/,
    ],
    [
      'under if/then',
      schema({}, { if: {}, then: { properties: { a: { type: 'string', 'x-mcp-header': 'A' } } } }),
      /not on a property reachable/,
    ],
    [
      'under $defs',
      schema({ a: { $ref: '#/$defs/A' } }, { $defs: { A: { type: 'string', 'x-mcp-header': 'A' } } }),
      /not on a property reachable/,
    ],
    ['on the root', { type: 'object', 'x-mcp-header': 'Root' }, /not on a property reachable/],
  ])('[x-mcp-header.invalid] rejects an annotation %s', (_what, inputSchema, reason) => {
    const plan = planToolHeaders(inputSchema);
    expect('invalid' in plan && plan.invalid).toMatch(reason);
  });
});

describe('toolCallHeaders', () => {
  const plan = planToolHeaders(
    schema({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      priority: { type: 'integer', 'x-mcp-header': 'Priority' },
      verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
      greeting: { type: 'string', 'x-mcp-header': 'Greeting' },
      nested: { type: 'object', properties: { id: { type: 'string', 'x-mcp-header': 'Id' } } },
      float: { type: 'number' },
    }),
  );

  it('[x-mcp-header.values] converts values by type, encodes unsafe strings, and omits null and missing ones', () => {
    expect(
      toolCallHeaders(plan, {
        region: 'us-west1',
        priority: -7,
        verbose: false,
        greeting: 'Hello, 世界',
        nested: { id: 'n1' },
        float: 3.5,
      }),
    ).toEqual({
      'Mcp-Param-Region': 'us-west1',
      'Mcp-Param-Priority': '-7',
      'Mcp-Param-Verbose': 'false',
      'Mcp-Param-Greeting': '=?base64?SGVsbG8sIOS4lueVjA==?=',
      'Mcp-Param-Id': 'n1',
    });
    expect(toolCallHeaders(plan, { region: 'eu', verbose: null, nested: 'flat' })).toEqual({
      'Mcp-Param-Region': 'eu',
    });
    expect(toolCallHeaders(plan, undefined)).toEqual({});
  });

  it('[x-mcp-header.safe-integer] refuses an integer outside the safe range', () => {
    expect(() => toolCallHeaders(plan, { priority: 2 ** 53 })).toThrow(RangeError);
  });
});

describe('x-mcp-header in the client', () => {
  let modern: ModernPeer | undefined;
  afterEach(() => modern?.client.close());
  const tools = [
    { name: 'valid', inputSchema: schema({ region: { type: 'string', 'x-mcp-header': 'Region' } }) },
    { name: 'broken', inputSchema: schema({ n: { type: 'number', 'x-mcp-header': 'N' } }) },
  ];

  it('[x-mcp-header.client] leaves invalid tools out of the list, sends the headers of valid ones, refuses to call the rest', async () => {
    const warnings: unknown[] = [];
    const logger = { warn: (o: unknown, m?: string) => warnings.push([o, m]) };
    modern = await modernPeer({ logger: silentWith(logger) });
    const { client, nextRequest, reply, headers } = modern;
    const listing = client.promises.listTools();
    reply(await nextRequest(), { tools, ttlMs: 0, cacheScope: 'public' });
    expect((await listing).map((t) => t.name)).toEqual(['valid']);
    expect(warnings).toContainEqual([
      expect.objectContaining({ tool: 'broken', reason: expect.stringMatching(/not a string, integer or boolean/) }),
      'tool left out: invalid x-mcp-header annotation',
    ]);
    const call = client.promises.callTool('valid', { region: ' eu ' });
    reply(await nextRequest(), { content: [] });
    await call;
    expect(headers.at(-1)).toEqual({ method: 'tools/call', headers: { 'Mcp-Param-Region': '=?base64?IGV1IA==?=' } });
    await expect(client.promises.callTool('broken', { n: 1 })).rejects.toThrow(
      /Tool "broken" was left out of the tool list/,
    );
  });

  it('[x-mcp-header.mismatch-retry] on HeaderMismatch, lists the tools again and retries once with their headers', async () => {
    modern = await modernPeer();
    const { client, nextRequest, reply, fail, headers } = modern;
    const call = client.promises.callTool('valid', { region: 'eu' });
    const first = await nextRequest();
    expect(first.method).toBe('tools/call');
    fail(first, -32020, 'Header mismatch: Mcp-Param-Region missing');
    const list = await nextRequest();
    expect(list.method).toBe('tools/list');
    reply(list, { tools, ttlMs: 0, cacheScope: 'public' });
    const second = await nextRequest();
    expect(second.method).toBe('tools/call');
    expect(second.id).not.toEqual(first.id);
    reply(second, { content: [] });
    await expect(call).resolves.toEqual({ content: [] });
    const calls = headers.filter((h) => h.method === 'tools/call').map((h) => h.headers);
    // The first call, made before the tool was listed, has no headers of its own to send.
    expect(calls).toEqual([undefined, { 'Mcp-Param-Region': 'eu' }]);

    // Once only: a second mismatch after the tools were listed again is the caller's error.
    const again = client.promises.callTool('valid', { region: 'us' });
    fail(await nextRequest(), -32020, 'Header mismatch: Mcp-Param-Region missing');
    reply(await nextRequest(), { tools, ttlMs: 0, cacheScope: 'public' });
    fail(await nextRequest(), -32020, 'Header mismatch: Mcp-Param-Region still wrong');
    await expect(again).rejects.toMatchObject({ code: -32020, message: expect.stringMatching(/still wrong/) });
    await new Promise((resolve) => setImmediate(resolve));
    const requests = modern.peer.received.filter((frame) => {
      const message = frame as Record<string, unknown>;
      return 'id' in message && 'method' in message;
    });
    expect(requests).toHaveLength(7);
  });
});

/** A pino-like logger that records warnings and drops the rest. */
function silentWith(sink: { warn: (o: unknown, m?: string) => void }) {
  const logger: Record<string, unknown> = {
    level: 'warn',
    isLevelEnabled: () => false,
    child: () => logger,
    warn: (o: unknown, m?: string) => sink.warn(o, m),
  };
  for (const level of ['trace', 'debug', 'info', 'error', 'fatal']) logger[level] = () => undefined;
  return logger as never;
}
