/** Hand-written cases of what 2026-07-28 (the modern revision) adds, drops and changes. */
import type { Revision } from '../../lib/schema/revisions';
import type { HandWrittenCase } from './cases';
import { clientInfo, elicitRequest, modernMeta, note, req, text } from './case-fixtures';

const S: Revision = '2026-07-28';
const before2026: readonly Revision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const allBut = (revision: Revision): Revision[] => [...before2026, S].filter((r) => r !== revision);
const complete = { resultType: 'complete' };
const cacheable = { ...complete, ttlMs: 60000, cacheScope: 'public' };
const withMeta = (meta: object) => ({ _meta: { ...modernMeta, ...meta } });

export const STATELESS_CASES: readonly HandWrittenCase[] = [
  // request _meta
  {
    definition: 'CallToolRequest',
    label: 'with request _meta',
    value: req('tools/call', { name: 'a', _meta: modernMeta }),
    valid: true,
  },
  {
    definition: 'CallToolRequest',
    label: 'full request _meta',
    value: req('tools/call', {
      name: 'a',
      ...withMeta({
        progressToken: 1,
        'io.modelcontextprotocol/clientInfo': clientInfo,
        'io.modelcontextprotocol/logLevel': 'debug',
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'com.example/x': { on: true } }, roots: {} },
      }),
    }),
    valid: true,
  },
  {
    definition: 'CallToolRequest',
    label: '_meta without client capabilities',
    value: req('tools/call', { name: 'a', _meta: { 'io.modelcontextprotocol/protocolVersion': S } }),
    valid: false,
    from: S,
  },
  {
    definition: 'CallToolRequest',
    label: 'protocol version as number',
    value: req('tools/call', { name: 'a', ...withMeta({ 'io.modelcontextprotocol/protocolVersion': 20260728 }) }),
    valid: false,
    from: S,
  },
  {
    definition: 'CallToolRequest',
    label: 'unknown log level',
    value: req('tools/call', { name: 'a', ...withMeta({ 'io.modelcontextprotocol/logLevel': 'loud' }) }),
    valid: false,
    from: S,
  },
  {
    definition: 'CallToolRequest',
    label: 'client info without version',
    value: req('tools/call', { name: 'a', ...withMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'c' } }) }),
    valid: false,
    from: S,
  },
  // multi round-trip retries
  {
    definition: 'CallToolRequest',
    label: 'retry with input responses and request state',
    value: req('tools/call', {
      name: 'a',
      _meta: modernMeta,
      inputResponses: { confirm: { action: 'accept', content: { ok: true } }, roots: { roots: [] } },
      requestState: 'opaque',
    }),
    valid: true,
  },
  {
    definition: 'CallToolRequest',
    label: 'input response of no known shape',
    value: req('tools/call', { name: 'a', _meta: modernMeta, inputResponses: { confirm: { action: 'maybe' } } }),
    valid: false,
    from: S,
  },
  {
    definition: 'GetPromptRequest',
    label: 'request state as number',
    value: req('prompts/get', { name: 'p', _meta: modernMeta, requestState: 7 }),
    valid: false,
    from: S,
  },
  {
    definition: 'ReadResourceRequest',
    label: 'retry',
    value: req('resources/read', { uri: 'file:///a', _meta: modernMeta, requestState: 's' }),
    valid: true,
  },
  {
    definition: 'InputRequiredResult',
    label: 'elicitation and request state',
    value: { resultType: 'input_required', inputRequests: { confirm: elicitRequest }, requestState: 's' },
    valid: true,
  },
  {
    definition: 'InputRequiredResult',
    label: 'every kind of input request',
    value: {
      resultType: 'input_required',
      inputRequests: {
        a: elicitRequest,
        b: { method: 'roots/list' },
        c: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: text }], maxTokens: 10 } },
      },
    },
    valid: true,
  },
  {
    definition: 'InputRequiredResult',
    label: 'input request of another method',
    value: { resultType: 'input_required', inputRequests: { a: { method: 'tools/call', params: { name: 'x' } } } },
    valid: false,
  },
  { definition: 'InputRequiredResult', label: 'without resultType', value: { requestState: 's' }, valid: false },
  {
    definition: 'InputResponses',
    label: 'sampling answer without model',
    value: { a: { role: 'assistant', content: text } },
    valid: false,
  },
  // server requests became input requests
  {
    definition: 'ElicitRequest',
    label: 'as an input request, without envelope',
    value: elicitRequest,
    valid: true,
    validIn: ['2025-06-18', S],
  },
  {
    definition: 'ElicitRequestURLParams',
    label: 'without elicitationId',
    value: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' },
    valid: true,
    from: S,
  },
  {
    definition: 'ListRootsRequest',
    label: 'without envelope',
    value: { method: 'roots/list' },
    valid: true,
    validIn: allBut('2025-11-25'),
  },
  { definition: 'ListRootsResult', label: 'roots', value: { roots: [{ uri: 'file:///home' }] }, valid: true },
  // results
  { definition: 'CallToolResult', label: 'with resultType', value: { ...complete, content: [text] }, valid: true },
  {
    definition: 'CallToolResult',
    label: 'resultType as number',
    value: { resultType: 1, content: [text] },
    valid: false,
    from: S,
  },
  {
    definition: 'CallToolResult',
    label: 'array structured content',
    value: { ...complete, content: [], structuredContent: [1, 2] },
    valid: true,
    validIn: ['2024-11-05', '2025-03-26', S],
  },
  {
    definition: 'Result',
    label: 'server info without version',
    value: { ...complete, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's' } } },
    valid: false,
    from: S,
  },
  { definition: 'ListToolsResult', label: 'cacheable page', value: { ...cacheable, tools: [] }, valid: true },
  {
    definition: 'ListToolsResult',
    label: 'negative ttlMs',
    value: { ...cacheable, ttlMs: -1, tools: [] },
    valid: false,
    from: S,
  },
  {
    definition: 'ListPromptsResult',
    label: 'unknown cacheScope',
    value: { ...cacheable, cacheScope: 'shared', prompts: [] },
    valid: false,
    from: S,
  },
  {
    definition: 'ReadResourceResult',
    label: 'without ttlMs',
    value: { ...complete, cacheScope: 'private', contents: [] },
    valid: false,
    from: S,
  },
  {
    definition: 'CompleteResult',
    label: 'more than 100 values',
    value: { ...complete, completion: { values: Array.from({ length: 101 }, (_, i) => String(i)) } },
    valid: true,
    validIn: before2026,
  },
  // tools
  {
    definition: 'Tool',
    label: 'execution as string',
    value: { name: 't', inputSchema: { type: 'object' }, execution: 'x' },
    valid: true,
    validIn: allBut('2025-11-25'),
  },
  {
    definition: 'Tool',
    label: 'any JSON Schema keyword in inputSchema',
    value: { name: 't', inputSchema: { type: 'object', properties: true, required: 'a', oneOf: [] } },
    valid: true,
    from: S,
  },
  {
    definition: 'Tool',
    label: 'outputSchema of an array',
    value: { name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } },
    valid: true,
    validIn: ['2024-11-05', '2025-03-26', S],
  },
  // capabilities
  {
    definition: 'ClientCapabilities',
    label: 'roots.listChanged as string',
    value: { roots: { listChanged: 'yes' } },
    valid: true,
    from: S,
  },
  {
    definition: 'ClientCapabilities',
    label: 'extension settings as number',
    value: { extensions: { 'com.example/x': 5 } },
    valid: false,
    from: S,
  },
  {
    definition: 'ClientCapabilities',
    label: 'tasks as string',
    value: { tasks: 'x' },
    valid: true,
    validIn: allBut('2025-11-25'),
  },
  {
    definition: 'ServerCapabilities',
    label: 'extensions',
    value: { extensions: { 'com.example/x': {} } },
    valid: true,
  },
  // discovery and subscriptions
  { definition: 'DiscoverRequest', label: 'plain', value: req('server/discover', { _meta: modernMeta }), valid: true },
  { definition: 'DiscoverRequest', label: 'without params', value: req('server/discover'), valid: false },
  {
    definition: 'DiscoverResult',
    label: 'plain',
    value: { ...cacheable, supportedVersions: [S, '2025-11-25'], capabilities: { tools: {} }, instructions: 'hi' },
    valid: true,
  },
  {
    definition: 'DiscoverResult',
    label: 'supportedVersions as string',
    value: { ...cacheable, supportedVersions: S, capabilities: {} },
    valid: false,
  },
  {
    definition: 'SubscriptionsListenRequest',
    label: 'plain',
    value: req('subscriptions/listen', {
      _meta: modernMeta,
      notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///a'] },
    }),
    valid: true,
  },
  {
    definition: 'SubscriptionsListenRequest',
    label: 'resource subscriptions as string',
    value: req('subscriptions/listen', { _meta: modernMeta, notifications: { resourceSubscriptions: 'file:///a' } }),
    valid: false,
  },
  {
    definition: 'SubscriptionsListenRequest',
    label: 'without notifications',
    value: req('subscriptions/listen', { _meta: modernMeta }),
    valid: false,
  },
  {
    definition: 'SubscriptionsListenResult',
    label: 'graceful end',
    value: { ...complete, _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } },
    valid: true,
  },
  {
    definition: 'SubscriptionsListenResult',
    label: 'without subscription id',
    value: { ...complete, _meta: {} },
    valid: false,
  },
  {
    definition: 'SubscriptionsAcknowledgedNotification',
    label: 'plain',
    value: note('notifications/subscriptions/acknowledged', {
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' },
      notifications: { promptsListChanged: true },
    }),
    valid: true,
  },
  {
    definition: 'ResourceUpdatedNotification',
    label: 'subscription id as object',
    value: note('notifications/resources/updated', {
      uri: 'file:///a',
      _meta: { 'io.modelcontextprotocol/subscriptionId': {} },
    }),
    valid: false,
    from: S,
  },
  // the unions of what each side sends
  { definition: 'ClientRequest', label: 'ping', value: req('ping'), valid: true, until: '2025-11-25' },
  {
    definition: 'ClientRequest',
    label: 'server/discover',
    value: req('server/discover', { _meta: modernMeta }),
    valid: true,
    from: S,
  },
  {
    definition: 'ClientNotification',
    label: 'progress',
    value: note('notifications/progress', { progressToken: 1, progress: 1 }),
    valid: true,
    until: '2025-11-25',
  },
  {
    definition: 'ServerNotification',
    label: 'subscription acknowledged',
    value: note('notifications/subscriptions/acknowledged', { notifications: {} }),
    valid: true,
    from: S,
  },
  {
    definition: 'CallToolResultResponse',
    label: 'input required',
    value: { jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', requestState: 's' } },
    valid: true,
  },
  {
    definition: 'CallToolResultResponse',
    label: 'complete',
    value: { jsonrpc: '2.0', id: 1, result: { ...complete, content: [text] } },
    valid: true,
  },
  {
    definition: 'ListToolsResultResponse',
    label: 'without caching hints',
    value: { jsonrpc: '2.0', id: 1, result: { ...complete, tools: [] } },
    valid: false,
  },
  // errors
  {
    definition: 'UnsupportedProtocolVersionError',
    label: 'plain',
    value: {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32022, message: 'Unsupported', data: { requested: '1999-01-01', supported: [S] } },
    },
    valid: true,
  },
  {
    definition: 'UnsupportedProtocolVersionError',
    label: 'supported as string',
    value: {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32022, message: 'Unsupported', data: { requested: 'x', supported: S } },
    },
    valid: false,
  },
  {
    definition: 'MissingRequiredClientCapabilityError',
    label: 'without data',
    value: { jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'Needs elicitation' } },
    valid: false,
  },
  {
    definition: 'MissingRequiredClientCapabilityError',
    label: 'plain',
    value: {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32021, message: 'Needs', data: { requiredCapabilities: { elicitation: {} } } },
    },
    valid: true,
  },
  {
    definition: 'HeaderMismatchError',
    label: 'without id',
    value: { jsonrpc: '2.0', error: { code: -32020, message: 'Mcp-Method does not match' } },
    valid: true,
  },
  {
    definition: 'HeaderMismatchError',
    label: 'other code',
    value: { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Mcp-Method does not match' } },
    valid: false,
  },
  {
    definition: 'InvalidParamsError',
    label: 'plain',
    value: { code: -32602, message: 'Unknown tool: x' },
    valid: true,
  },
  {
    definition: 'InvalidParamsError',
    label: 'other code',
    value: { code: -32002, message: 'Not found' },
    valid: false,
  },
];
