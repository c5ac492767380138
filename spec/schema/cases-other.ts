/** Hand-written cases: progress, cancellation, sampling, elicitation, roots, tasks and JSON-RPC envelopes. */
import type { HandWrittenCase } from './cases';
import { audio, embedded, note, req, text, toolResult, toolUse } from './case-fixtures';

export const OTHER_CASES: readonly HandWrittenCase[] = [
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
    // Tasks, the reason requestId became optional, left the core protocol in 2026-07-28.
    valid: true,
    validIn: ['2025-11-25'],
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
  {
    definition: 'JSONRPCResponse',
    label: 'result',
    value: { jsonrpc: '2.0', id: 'a', result: {} },
    valid: true,
    until: '2025-11-25',
  },
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
