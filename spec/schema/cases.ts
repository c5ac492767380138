/**
 * Hand-written instances of the important messages, each run against zod and the official JSON
 * Schema of every revision that has the definition. `valid` is the expected verdict; with `from`,
 * the instance is valid from that revision on and invalid before.
 */
import type { Revision } from '../../lib/schema/revisions';

export interface HandWrittenCase {
  readonly definition: string;
  readonly label: string;
  readonly value: unknown;
  readonly valid: boolean;
  readonly from?: Revision;
  /** When set, the instance is valid exactly in these revisions (overrides `valid` and `from`). */
  readonly validIn?: readonly Revision[];
}

/** The verdict a case expects in `revision`. */
export function expectedVerdict(c: HandWrittenCase, revision: Revision): boolean {
  if (c.validIn) return c.validIn.includes(revision);
  if (c.from && revision < c.from) return !c.valid;
  return c.valid;
}

const text = { type: 'text', text: 'hello' };
const image = { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' };
const audio = { type: 'audio', data: 'aGVsbG8=', mimeType: 'audio/wav' };
const textResource = { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'a' };
const blobResource = { uri: 'file:///a.bin', blob: 'aGVsbG8=' };
const embedded = { type: 'resource', resource: textResource, annotations: { audience: ['user'], priority: 0.5 } };
const resourceLink = { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' };
const toolUse = { type: 'tool_use', id: 'call-1', name: 'weather', input: { city: 'Paris' } };
const toolResult = { type: 'tool_result', toolUseId: 'call-1', content: [text] };
const req = (method: string, params?: object) => ({ jsonrpc: '2.0', id: 1, method, ...(params && { params }) });
const note = (method: string, params?: object) => ({ jsonrpc: '2.0', method, ...(params && { params }) });
const clientInfo = { name: 'client', version: '1.0.0' };
const initializeParams = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo };

export const HAND_WRITTEN_CASES: readonly HandWrittenCase[] = [
  // initialize and ping
  { definition: 'InitializeRequest', label: 'minimal', value: req('initialize', initializeParams), valid: true },
  {
    definition: 'InitializeRequest',
    label: 'empty-object capabilities',
    value: req('initialize', {
      ...initializeParams,
      capabilities: { sampling: {}, roots: { listChanged: true }, elicitation: {}, experimental: { x: {} } },
    }),
    valid: true,
  },
  {
    definition: 'InitializeRequest',
    label: 'without clientInfo',
    value: req('initialize', { protocolVersion: '2025-06-18', capabilities: {} }),
    valid: false,
  },
  {
    definition: 'InitializeRequest',
    label: 'protocolVersion as number',
    value: req('initialize', { ...initializeParams, protocolVersion: 20250618 }),
    valid: false,
  },
  { definition: 'InitializeRequest', label: 'without params', value: req('initialize'), valid: false },
  { definition: 'InitializeRequest', label: 'other method', value: req('tools/list', initializeParams), valid: false },
  {
    definition: 'ClientCapabilities',
    label: '2025-11-25 elicitation modes and sampling tools',
    value: {
      elicitation: { form: {}, url: {} },
      sampling: { tools: {}, context: {} },
      tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } },
    },
    valid: true,
  },
  {
    definition: 'ClientCapabilities',
    label: 'elicitation true',
    value: { elicitation: true },
    valid: false,
    from: '2025-06-18',
  },
  { definition: 'ClientCapabilities', label: 'sampling as string', value: { sampling: 'yes' }, valid: false },
  {
    definition: 'InitializeResult',
    label: 'full',
    value: {
      protocolVersion: '2025-11-25',
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true },
        prompts: {},
        logging: {},
        completions: {},
      },
      serverInfo: { name: 'server', version: '1', title: 'Server' },
      instructions: 'use tools',
    },
    valid: true,
  },
  {
    definition: 'InitializeResult',
    label: 'resources.subscribe as string',
    value: { protocolVersion: '2025-11-25', capabilities: { resources: { subscribe: 'yes' } }, serverInfo: clientInfo },
    valid: false,
  },
  { definition: 'InitializedNotification', label: 'plain', value: note('notifications/initialized'), valid: true },
  { definition: 'PingRequest', label: 'plain', value: req('ping'), valid: true },
  {
    definition: 'PingRequest',
    label: 'with progress token',
    value: req('ping', { _meta: { progressToken: 't' } }),
    valid: true,
  },
  {
    definition: 'PingRequest',
    label: 'progress token as object',
    value: req('ping', { _meta: { progressToken: {} } }),
    valid: false,
  },
  // tools
  {
    definition: 'CallToolRequest',
    label: 'with arguments and progress token',
    value: req('tools/call', { name: 'add', arguments: { a: 1, b: 2 }, _meta: { progressToken: 7 } }),
    valid: true,
  },
  { definition: 'CallToolRequest', label: 'name as number', value: req('tools/call', { name: 1 }), valid: false },
  {
    definition: 'CallToolRequest',
    label: 'arguments as array',
    value: req('tools/call', { name: 'a', arguments: [1] }),
    valid: false,
  },
  {
    definition: 'CallToolRequest',
    label: 'task-augmented',
    value: req('tools/call', { name: 'a', task: { ttl: 60000 } }),
    valid: true,
  },
  { definition: 'CallToolResult', label: 'text', value: { content: [text] }, valid: true },
  { definition: 'CallToolResult', label: 'image', value: { content: [image], isError: false }, valid: true },
  { definition: 'CallToolResult', label: 'audio', value: { content: [audio] }, valid: true, from: '2025-03-26' },
  {
    definition: 'CallToolResult',
    label: 'embedded resources',
    value: { content: [embedded, { type: 'resource', resource: blobResource }] },
    valid: true,
  },
  {
    definition: 'CallToolResult',
    label: 'resource link',
    value: { content: [resourceLink] },
    valid: true,
    from: '2025-06-18',
  },
  {
    definition: 'CallToolResult',
    label: 'structured content',
    value: { content: [], structuredContent: { temperature: 21 } },
    valid: true,
  },
  {
    definition: 'CallToolResult',
    label: 'structured content as array',
    value: { content: [], structuredContent: [1] },
    valid: false,
    from: '2025-06-18',
  },
  {
    definition: 'CallToolResult',
    label: 'unknown content type',
    value: { content: [{ type: 'video', data: 'x' }] },
    valid: false,
  },
  { definition: 'CallToolResult', label: 'text without text', value: { content: [{ type: 'text' }] }, valid: false },
  { definition: 'CallToolResult', label: 'without content', value: { isError: true }, valid: false },
  {
    definition: 'CallToolResult',
    label: 'tool use is not tool-result content',
    value: { content: [toolUse] },
    valid: false,
  },
  {
    definition: 'CallToolResult',
    label: 'priority above 1',
    value: { content: [{ ...text, annotations: { priority: 2 } }] },
    valid: false,
  },
  {
    definition: 'Tool',
    label: 'full',
    value: {
      name: 'weather',
      title: 'Weather',
      description: 'Gets the weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      outputSchema: { type: 'object', properties: { temperature: { type: 'number' } } },
      annotations: { readOnlyHint: true, openWorldHint: true },
      icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' }],
      execution: { taskSupport: 'optional' },
    },
    valid: true,
  },
  {
    definition: 'Tool',
    label: 'inputSchema of type string',
    value: { name: 't', inputSchema: { type: 'string' } },
    valid: false,
  },
  {
    definition: 'Tool',
    label: 'annotations as string',
    value: { name: 't', inputSchema: { type: 'object' }, annotations: 'ro' },
    valid: false,
    from: '2025-03-26',
  },
  {
    definition: 'ListToolsResult',
    label: 'page',
    value: { tools: [{ name: 't', inputSchema: { type: 'object' } }], nextCursor: 'c2' },
    valid: true,
  },
  // resources
  {
    definition: 'ReadResourceRequest',
    label: 'plain',
    value: req('resources/read', { uri: 'file:///a.txt' }),
    valid: true,
  },
  { definition: 'ReadResourceRequest', label: 'without uri', value: req('resources/read', {}), valid: false },
  {
    definition: 'ReadResourceResult',
    label: 'text and blob',
    value: { contents: [textResource, blobResource] },
    valid: true,
  },
  {
    definition: 'ReadResourceResult',
    label: 'contents without text or blob',
    value: { contents: [{ uri: 'file:///a' }] },
    valid: false,
  },
  {
    definition: 'ListResourcesResult',
    label: 'page',
    value: { resources: [{ uri: 'file:///a', name: 'a', size: 3 }] },
    valid: true,
  },
  {
    definition: 'ListResourcesResult',
    label: 'size as float',
    value: { resources: [{ uri: 'file:///a', name: 'a', size: 1.5 }] },
    valid: false,
  },
  {
    definition: 'ResourceUpdatedNotification',
    label: 'plain',
    value: note('notifications/resources/updated', { uri: 'file:///a' }),
    valid: true,
  },
  // prompts
  {
    definition: 'GetPromptRequest',
    label: 'string arguments',
    value: req('prompts/get', { name: 'p', arguments: { a: 'x' } }),
    valid: true,
  },
  {
    definition: 'GetPromptRequest',
    label: 'number argument',
    value: req('prompts/get', { name: 'p', arguments: { a: 1 } }),
    valid: false,
  },
  {
    definition: 'GetPromptResult',
    label: 'every content type',
    value: {
      description: 'd',
      messages: [
        { role: 'user', content: text },
        { role: 'assistant', content: image },
        { role: 'user', content: embedded },
      ],
    },
    valid: true,
  },
  {
    definition: 'GetPromptResult',
    label: 'audio message',
    value: { messages: [{ role: 'user', content: audio }] },
    valid: true,
    from: '2025-03-26',
  },
  {
    definition: 'GetPromptResult',
    label: 'role system',
    value: { messages: [{ role: 'system', content: text }] },
    valid: false,
  },
  // completion
  {
    definition: 'CompleteRequest',
    label: 'prompt argument',
    value: req('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'x' } }),
    valid: true,
  },
  {
    definition: 'CompleteRequest',
    label: 'resource template with context',
    value: req('completion/complete', {
      ref: { type: 'ref/resource', uri: 'file:///{p}' },
      argument: { name: 'p', value: 'x' },
      context: { arguments: { q: 'y' } },
    }),
    valid: true,
  },
  {
    definition: 'CompleteRequest',
    label: 'context argument as number',
    value: req('completion/complete', {
      ref: { type: 'ref/prompt', name: 'p' },
      argument: { name: 'a', value: 'x' },
      context: { arguments: { q: 1 } },
    }),
    valid: false,
    from: '2025-06-18',
  },
  {
    definition: 'CompleteRequest',
    label: 'unknown ref type',
    value: req('completion/complete', { ref: { type: 'ref/tool', name: 'p' }, argument: { name: 'a', value: 'x' } }),
    valid: false,
  },
  {
    definition: 'CompleteResult',
    label: 'values',
    value: { completion: { values: ['a', 'b'], total: 2, hasMore: false } },
    valid: true,
  },
  { definition: 'CompleteResult', label: 'values as string', value: { completion: { values: 'a' } }, valid: false },
  // logging
  { definition: 'SetLevelRequest', label: 'debug', value: req('logging/setLevel', { level: 'debug' }), valid: true },
  {
    definition: 'SetLevelRequest',
    label: 'unknown level',
    value: req('logging/setLevel', { level: 'verbose' }),
    valid: false,
  },
  {
    definition: 'LoggingMessageNotification',
    label: 'object data',
    value: note('notifications/message', { level: 'error', logger: 'db', data: { code: 1 } }),
    valid: true,
  },
  {
    definition: 'LoggingMessageNotification',
    label: 'null data',
    value: note('notifications/message', { level: 'info', data: null }),
    valid: true,
  },
  {
    definition: 'LoggingMessageNotification',
    label: 'without data',
    value: note('notifications/message', { level: 'info' }),
    valid: false,
  },
  // progress and cancellation
  {
    definition: 'ProgressNotification',
    label: 'with total',
    value: note('notifications/progress', { progressToken: 'abc', progress: 50, total: 100 }),
    valid: true,
  },
  {
    definition: 'ProgressNotification',
    label: 'with message',
    value: note('notifications/progress', { progressToken: 1, progress: 1, message: 'half' }),
    valid: true,
  },
  {
    definition: 'ProgressNotification',
    label: 'message as number',
    value: note('notifications/progress', { progressToken: 1, progress: 1, message: 5 }),
    valid: false,
    from: '2025-03-26',
  },
  {
    definition: 'ProgressNotification',
    label: 'float token',
    value: note('notifications/progress', { progressToken: 1.5, progress: 1 }),
    valid: false,
  },
  {
    definition: 'ProgressNotification',
    label: 'without progress',
    value: note('notifications/progress', { progressToken: 1 }),
    valid: false,
  },
  {
    definition: 'CancelledNotification',
    label: 'with reason',
    value: note('notifications/cancelled', { requestId: 3, reason: 'user' }),
    valid: true,
  },
  {
    definition: 'CancelledNotification',
    label: 'without requestId',
    value: note('notifications/cancelled', { reason: 'x' }),
    valid: true,
    from: '2025-11-25',
  },
  {
    definition: 'CancelledNotification',
    label: 'null requestId',
    value: note('notifications/cancelled', { requestId: null }),
    valid: false,
  },
  // sampling
  {
    definition: 'CreateMessageRequest',
    label: 'text conversation',
    value: req('sampling/createMessage', {
      messages: [{ role: 'user', content: text }],
      maxTokens: 100,
      modelPreferences: { hints: [{ name: 'claude' }], intelligencePriority: 0.8 },
      includeContext: 'thisServer',
      stopSequences: ['\n'],
      metadata: { a: 1 },
    }),
    valid: true,
  },
  {
    definition: 'CreateMessageRequest',
    label: 'without maxTokens',
    value: req('sampling/createMessage', { messages: [] }),
    valid: false,
  },
  {
    definition: 'CreateMessageRequest',
    label: 'bad includeContext',
    value: req('sampling/createMessage', { messages: [], maxTokens: 1, includeContext: 'all' }),
    valid: false,
  },
  {
    definition: 'CreateMessageRequest',
    label: 'costPriority above 1',
    value: req('sampling/createMessage', { messages: [], maxTokens: 1, modelPreferences: { costPriority: 3 } }),
    valid: false,
  },
  {
    definition: 'CreateMessageRequest',
    label: 'with tools',
    value: req('sampling/createMessage', {
      messages: [
        { role: 'user', content: text },
        { role: 'assistant', content: [toolUse] },
        { role: 'user', content: [toolResult] },
      ],
      maxTokens: 100,
      tools: [{ name: 'weather', inputSchema: { type: 'object' } }],
      toolChoice: { mode: 'auto' },
    }),
    valid: true,
    from: '2025-11-25',
  },
  {
    definition: 'CreateMessageResult',
    label: 'text',
    value: { role: 'assistant', content: text, model: 'm', stopReason: 'endTurn' },
    valid: true,
  },
  {
    definition: 'CreateMessageResult',
    label: 'audio',
    value: { role: 'assistant', content: audio, model: 'm' },
    valid: true,
    from: '2025-03-26',
  },
  {
    definition: 'CreateMessageResult',
    label: 'tool use',
    value: { role: 'assistant', content: toolUse, model: 'm', stopReason: 'toolUse' },
    valid: true,
    from: '2025-11-25',
  },
  {
    definition: 'CreateMessageResult',
    label: 'embedded resource',
    value: { role: 'assistant', content: embedded, model: 'm' },
    valid: false,
  },
  {
    definition: 'CreateMessageResult',
    label: 'without model',
    value: { role: 'assistant', content: text },
    valid: false,
  },
  // elicitation
  {
    definition: 'ElicitRequest',
    label: 'form',
    value: req('elicitation/create', {
      message: 'Who are you?',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, format: 'email' },
          age: { type: 'integer', minimum: 0 },
          ok: { type: 'boolean', default: true },
          color: { type: 'string', enum: ['red', 'green'], enumNames: ['Red', 'Green'] },
        },
        required: ['name'],
      },
    }),
    valid: true,
  },
  {
    definition: 'ElicitRequest',
    label: 'titled and multi-select enums',
    value: req('elicitation/create', {
      mode: 'form',
      message: 'Pick',
      requestedSchema: {
        type: 'object',
        properties: {
          one: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }], default: 'r' },
          many: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a'] },
          titled: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] } },
        },
      },
    }),
    valid: true,
    from: '2025-11-25',
  },
  {
    definition: 'ElicitRequest',
    label: 'nested object property',
    value: req('elicitation/create', {
      message: 'm',
      requestedSchema: { type: 'object', properties: { nested: { type: 'object' } } },
    }),
    valid: false,
  },
  {
    definition: 'ElicitRequest',
    label: 'url mode',
    value: req('elicitation/create', {
      mode: 'url',
      message: 'Sign in',
      elicitationId: 'e1',
      url: 'https://example.com/login',
    }),
    valid: true,
    from: '2025-11-25',
  },
  {
    definition: 'ElicitRequest',
    label: 'url mode without url',
    value: req('elicitation/create', { mode: 'url', message: 'Sign in', elicitationId: 'e1' }),
    valid: false,
  },
  {
    definition: 'ElicitResult',
    label: 'accept',
    value: { action: 'accept', content: { name: 'Ada', age: 36, ok: true } },
    valid: true,
  },
  {
    definition: 'ElicitResult',
    label: 'multi-select content',
    value: { action: 'accept', content: { many: ['a', 'b'] } },
    valid: true,
    from: '2025-11-25',
  },
  { definition: 'ElicitResult', label: 'decline', value: { action: 'decline' }, valid: true },
  { definition: 'ElicitResult', label: 'unknown action', value: { action: 'maybe' }, valid: false },
  {
    definition: 'ElicitResult',
    label: 'object content value',
    value: { action: 'accept', content: { a: { b: 1 } } },
    valid: false,
  },
  {
    definition: 'ElicitationCompleteNotification',
    label: 'plain',
    value: note('notifications/elicitation/complete', { elicitationId: 'e1' }),
    valid: true,
  },
  // roots
  {
    definition: 'ListRootsResult',
    label: 'roots',
    value: { roots: [{ uri: 'file:///home', name: 'home' }] },
    valid: true,
  },
  { definition: 'ListRootsResult', label: 'root without uri', value: { roots: [{ name: 'home' }] }, valid: false },
  // tasks
  {
    definition: 'GetTaskResult',
    label: 'working',
    value: {
      taskId: 't1',
      status: 'working',
      createdAt: '2025-11-25T00:00:00Z',
      lastUpdatedAt: '2025-11-25T00:00:00Z',
      ttl: null,
      pollInterval: 1000,
    },
    valid: true,
  },
  {
    definition: 'GetTaskResult',
    label: 'unknown status',
    value: { taskId: 't1', status: 'paused', createdAt: 'x', lastUpdatedAt: 'x', ttl: 1 },
    valid: false,
  },
  {
    definition: 'CreateTaskResult',
    label: 'created',
    value: { task: { taskId: 't1', status: 'working', createdAt: 'x', lastUpdatedAt: 'x', ttl: 60000 } },
    valid: true,
  },
  // JSON-RPC envelopes and errors
  { definition: 'JSONRPCRequest', label: 'string id', value: req('anything'), valid: true },
  { definition: 'JSONRPCRequest', label: 'null id', value: { jsonrpc: '2.0', id: null, method: 'x' }, valid: false },
  { definition: 'JSONRPCRequest', label: 'jsonrpc 1.0', value: { jsonrpc: '1.0', id: 1, method: 'x' }, valid: false },
  { definition: 'JSONRPCNotification', label: 'plain', value: note('anything', { a: 1 }), valid: true },
  { definition: 'JSONRPCResponse', label: 'result', value: { jsonrpc: '2.0', id: 'a', result: {} }, valid: true },
  {
    definition: 'JSONRPCResponse',
    label: 'result as array',
    value: { jsonrpc: '2.0', id: 'a', result: [] },
    valid: false,
  },
  {
    definition: 'JSONRPCError',
    label: 'invalid params',
    value: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params', data: { issues: [] } } },
    valid: true,
  },
  {
    definition: 'JSONRPCError',
    label: 'without id',
    value: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
    valid: false,
  },
  {
    definition: 'JSONRPCErrorResponse',
    label: 'without id',
    value: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
    valid: true,
  },
  {
    definition: 'JSONRPCErrorResponse',
    label: 'code as string',
    value: { jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'm' } },
    valid: false,
  },
  {
    definition: 'JSONRPCErrorResponse',
    label: 'float code',
    value: { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } },
    valid: false,
  },
  {
    definition: 'URLElicitationRequiredError',
    label: 'with elicitations',
    value: {
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32042,
        message: 'Needs auth',
        data: { elicitations: [{ mode: 'url', message: 'm', elicitationId: 'e', url: 'https://example.com' }] },
      },
    },
    valid: true,
  },
  {
    definition: 'URLElicitationRequiredError',
    label: 'other code',
    value: { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'm', data: { elicitations: [] } } },
    valid: false,
  },
  {
    definition: 'JSONRPCMessage',
    label: 'batch of requests',
    value: [req('ping'), note('notifications/initialized')],
    valid: true,
    validIn: ['2025-03-26'],
  },
  {
    definition: 'JSONRPCMessage',
    label: 'batch of responses',
    value: [{ jsonrpc: '2.0', id: 1, result: {} }],
    valid: true,
    validIn: ['2025-03-26'],
  },
  { definition: 'JSONRPCMessage', label: 'plain string', value: 'ping', valid: false },
  {
    definition: 'ClientRequest',
    label: 'server-only method',
    value: req('sampling/createMessage', { messages: [], maxTokens: 1 }),
    valid: false,
  },
  {
    definition: 'ServerNotification',
    label: 'log message',
    value: note('notifications/message', { level: 'info', data: 'x' }),
    valid: true,
  },
];
