/**
 * What changes between revisions, seen through `schemasFor`.
 */
import { JSONObjectSchema, JSONValueSchema } from '../../lib/schema/base';
import { schemasFor } from '../../lib/schema/definitions';
import { LEGACY_REVISIONS, SUPPORTED_REVISIONS, type Revision } from '../../lib/schema/revisions';
import { AudioContentSchema, ContentBlockSchema } from '../../lib/schema/content';
import { ClientCapabilitiesSchema, InitializeRequestSchema } from '../../lib/schema/lifecycle';
import { ToolSchema } from '../../lib/schema/tools';
import type { CallToolRequestParams, CallToolResult } from '../../lib/schema/tools';
import type { InputRequiredResult } from '../../lib/schema/input-requests';

function accepts(revision: Revision, definition: string, value: unknown): boolean {
  const schema = schemasFor(revision)[definition];
  if (!schema) throw new Error(`${revision} has no ${definition}`);
  return schema.safeParse(value).success;
}
/** The verdicts of the handshake revisions, oldest first. */
const verdicts = (definition: string, value: unknown) => LEGACY_REVISIONS.map((r) => accepts(r, definition, value));
/** The verdicts of every revision, oldest first (2026-07-28 last). */
const allVerdicts = (definition: string, value: unknown) =>
  SUPPORTED_REVISIONS.map((r) => accepts(r, definition, value));
const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('revision differences', () => {
  const audio = { type: 'audio', data: 'aGVsbG8=', mimeType: 'audio/wav' };
  const link = { type: 'resource_link', uri: 'file:///a', name: 'a' };

  it('accepts a fractional number in an accepted form, as the spec types say (the JSON Schema says integer)', () => {
    // elicitation-sep1034-defaults: a form with a `number` field answers 95.5.
    const form = { action: 'accept', content: { score: 95.5 } };
    expect([accepts('2025-06-18', 'ElicitResult', form), accepts('2025-11-25', 'ElicitResult', form)]).toEqual([
      true,
      true,
    ]);
  });

  it('accepts AudioContent in a tool result from 2025-03-26', () => {
    expect(verdicts('CallToolResult', { content: [audio] })).toEqual([false, true, true, true]);
  });

  it('accepts resource links in a tool result from 2025-06-18', () => {
    expect(verdicts('CallToolResult', { content: [link] })).toEqual([false, false, true, true]);
  });

  it('checks structuredContent from 2025-06-18 (before, it is an unknown key)', () => {
    expect(verdicts('CallToolResult', { content: [], structuredContent: 'x' })).toEqual([true, true, false, false]);
  });

  it('requires jsonrpc and id in request definitions from 2025-11-25', () => {
    expect(verdicts('PingRequest', { method: 'ping' })).toEqual([true, true, true, false]);
  });

  it('makes requestId of notifications/cancelled optional in 2025-11-25', () => {
    expect(
      verdicts('CancelledNotification', { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} }),
    ).toEqual([false, false, false, true]);
  });

  it('accepts several blocks in a sampling message from 2025-11-25', () => {
    const message = { role: 'user', content: [{ type: 'text', text: 'a' }] };
    expect(verdicts('SamplingMessage', message)).toEqual([false, false, false, true]);
  });

  it('lets an error response leave out the id from 2025-11-25', () => {
    const error = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } };
    expect(
      SUPPORTED_REVISIONS.map((r) => accepts(r, r >= '2025-11-25' ? 'JSONRPCErrorResponse' : 'JSONRPCError', error)),
    ).toEqual([false, false, false, true, true]);
  });

  it('requires resultType on every result from 2026-07-28', () => {
    expect(allVerdicts('CallToolResult', { content: [] })).toEqual([true, true, true, true, false]);
    expect(allVerdicts('CallToolResult', { resultType: 'complete', content: [] })).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(allVerdicts('JSONRPCResponse', { jsonrpc: '2.0', id: 1, result: {} })).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('requires the request _meta from 2026-07-28', () => {
    expect(allVerdicts('ListToolsRequest', { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } };
    expect(allVerdicts('ListToolsRequest', request)).toEqual([true, true, true, true, true]);
  });

  it('requires caching hints on lists and reads from 2026-07-28', () => {
    const page = { resultType: 'complete', tools: [] };
    expect(allVerdicts('ListToolsResult', page)).toEqual([true, true, true, true, false]);
    expect(allVerdicts('ListToolsResult', { ...page, ttlMs: 0, cacheScope: 'public' })).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('requires requestId in notifications/cancelled again from 2026-07-28', () => {
    const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} };
    expect(allVerdicts('CancelledNotification', cancelled)).toEqual([false, false, false, true, false]);
  });

  it('sends sampling, elicitation and roots requests without envelope from 2026-07-28', () => {
    const roots = { method: 'roots/list' };
    expect(allVerdicts('ListRootsRequest', roots)).toEqual([true, true, true, false, true]);
  });

  it('accepts fractions and null in JSON values, as the spec types say (the JSON Schema lists integers only)', () => {
    // The published schema's JSONValue leaves are strings, integers and booleans, which would
    // refuse `{ "ratio": 0.5 }` or `{ "limit": null }` in an extension's settings.
    const settings = { ratio: 0.5, limit: null, nested: [1.5, { x: null }] };
    expect(JSONValueSchema.safeParse(settings).success).toBe(true);
    expect(JSONObjectSchema.safeParse(settings).success).toBe(true);
    expect(accepts('2026-07-28', 'ClientCapabilities', { extensions: { 'com.example/x': settings } })).toBe(true);
    expect(JSONValueSchema.safeParse(undefined).success).toBe(false);
    expect(JSONObjectSchema.safeParse([1]).success).toBe(false);
  });

  it('has the definitions of each revision only', () => {
    expect('AudioContent' in schemasFor('2024-11-05')).toBe(false);
    expect('Annotated' in schemasFor('2024-11-05')).toBe(true);
    expect('JSONRPCBatchRequest' in schemasFor('2025-03-26')).toBe(true);
    expect('JSONRPCBatchRequest' in schemasFor('2025-06-18')).toBe(false);
    expect('ElicitRequest' in schemasFor('2025-03-26')).toBe(false);
    expect('Task' in schemasFor('2025-11-25')).toBe(true);
    expect('Task' in schemasFor('2026-07-28')).toBe(false);
    expect('InitializeRequest' in schemasFor('2026-07-28')).toBe(false);
    expect('ServerRequest' in schemasFor('2026-07-28')).toBe(false);
    expect('DiscoverRequest' in schemasFor('2025-11-25')).toBe(false);
    expect('DiscoverRequest' in schemasFor('2026-07-28')).toBe(true);
    // Kept in 2026-07-28: they travel inside InputRequiredResult.
    expect('ElicitRequest' in schemasFor('2026-07-28')).toBe(true);
    expect('CreateMessageResult' in schemasFor('2026-07-28')).toBe(true);
  });

  it('exports the latest revision schemas, built on first use and shared with the revision table', () => {
    expect(AudioContentSchema.unwrap()).toBe(schemasFor('2025-11-25').AudioContent);
    expect(ToolSchema.unwrap()).toBe(schemasFor('2025-11-25').Tool);
    expect(ContentBlockSchema.unwrap()).toBe(schemasFor('2025-11-25').ContentBlock);
  });
});

describe('latest schemas', () => {
  it('keep unknown keys, so results round-trip untouched', () => {
    const tool = { name: 't', inputSchema: { type: 'object', extra: 1 }, vendorField: { x: 1 }, _meta: { 'a/b': 2 } };
    expect(ToolSchema.parse(tool)).toEqual(tool);
  });

  it('accept the empty-object capability forms peers send', () => {
    for (const capabilities of [
      { sampling: {}, elicitation: {} },
      { elicitation: { form: {}, url: {} } },
      { roots: {} },
    ]) {
      expect(ClientCapabilitiesSchema.safeParse(capabilities).success).toBe(true);
    }
  });

  it('type values of every revision alike: what 2026-07-28 alone requires is optional in the types', () => {
    const handshake: CallToolResult = { content: [] };
    const modern: CallToolResult = { resultType: 'complete', content: [], structuredContent: [1, 2] };
    const params: CallToolRequestParams = { name: 'a', _meta: { progressToken: 1 } };
    const interim: InputRequiredResult = { resultType: 'input_required', requestState: 's' };
    // @ts-expect-error content is required in every revision
    const broken: CallToolResult = { resultType: 'complete' };
    expect([handshake, modern, params, interim, broken]).toHaveLength(5);
    expect(accepts('2025-11-25', 'CallToolResult', handshake)).toBe(true);
    expect(accepts('2026-07-28', 'CallToolResult', modern)).toBe(true);
  });

  it('validate a whole initialize request', () => {
    const request = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    };
    expect(InitializeRequestSchema.parse(request)).toEqual(request);
  });
});
