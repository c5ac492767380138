import { z as z3 } from 'zod3';
import * as api from '../lib/index';
import * as client from '../lib/entries/client';
import * as core from '../lib/entries/core';
import * as auth from '../lib/entries/auth';
import * as http from '../lib/entries/http';
import * as httpClient from '../lib/entries/http-client';
import * as server from '../lib/entries/server';
import * as stdio from '../lib/entries/stdio';
import * as websocket from '../lib/entries/websocket';
import * as proxyEntry from '../lib/entries/proxy';
import * as clusterEntry from '../lib/entries/cluster';

// Changing the public surface is a deliberate act: update this list in the same commit.
const EXPORTS = [
  'CapabilityNotSupportedError',
  'ConnectionClosedError',
  'DEFAULT_REQUEST_TIMEOUT_MS',
  'ErrorCode',
  'JsonRpcError',
  'LATEST_REVISION',
  'LOG_LEVELS',
  'LogUpdate',
  'NotInitializedError',
  'ProgressUpdate',
  'ProtocolError',
  'RequestTimeoutError',
  'SUPPORTED_REVISIONS',
  'TransportError',
  'UnsupportedProtocolVersionError',
  'cancelOnUnsubscribe',
  'applyElicitationDefaults',
  'connect',
  'KeepaliveTimeoutError',
  'toolResult',
  'taskResult',
  'TaskCancelledError',
  'TaskNotSupportedError',
  'TASKS_EXTENSION',
  'createInMemoryPair',
  'createServer',
  'createStdioClientTransport',
  'createStdioServerTransport',
  'createWebSocketClientTransport',
  'startWebSocketServer',
  'createWebSocketHandler',
  'createLegacySseClientTransport',
  'createLegacySseHandler',
  'createHttpClientTransport',
  'SessionNotFoundError',
  'createStreamableHttpClientTransport',
  'REQUEST_OUTCOME_UNKNOWN',
  'createInMemoryEventStore',
  'startStreamableHttpServer',
  'createStreamableHttpHandler',
  'createStreamableHttpFetchHandler',
  'isSupportedRevision',
  'STATEFUL_REVISIONS',
  'LATEST_STATEFUL_REVISION',
  'isStatefulRevision',
  'MODERN_REVISIONS',
  'isModernRevision',
  'log',
  'progress',
  'progressFor',
  'monotonicProgress',
  // Extensions: skills (SEP-2640) and MCP Apps
  'SKILLS_EXTENSION',
  'skillDigest',
  'FrontmatterError',
  'parseSkillDocument',
  'clientExtension',
  'clientSupportsExtension',
  'loadSkillFolder',
  'serveSkills',
  'serverExtension',
  'serverExtensions',
  'serverSupportsExtension',
  'SkillVerificationError',
  'skillsClient',
  'appsMiddleware',
  'clientSupportsApps',
  'serveApps',
  'UI_EXTENSION',
  'UI_MIME_TYPE',
  'paginate',
  'paginatePages',
  'PageLimitError',
  'RepeatedCursorError',
  'createFanOut',
  'timeoutWithReset',
  'textResult',
  'ToolError',
  'MAX_COMPLETION_VALUES',
  'parseUriTemplate',
  'compileJsonSchema',
  'MissingPageError',
  'abortOnSignal',
  'LegacyServerError',
  'InputRoundsExceededError',
  'DEFAULT_CACHE_HINTS',
  'createOAuthClient',
  'OAuthError',
  'createFileOAuthStorage',
  'createMemoryOAuthStorage',
  'createResourceServer',
  'principalOf',
  'introspectionVerifier',
  'InvalidTokenError',
  'jwtVerifier',
  'startLoopbackRedirect',
  'proxy',
  'createProxyRouter',
  'aggregate',
  'RequestSent',
  'isResultEvent',
  'logging',
  'metrics',
  'timing',
  'TracingUnavailableError',
  'authorize',
  'cache',
  'callerOf',
  'rateLimit',
  'createMemoryRateLimitStore',
  'concurrencyLimit',
  'toolPolicy',
  'serverTracing',
  'retrying',
  'withMeta',
  'clientTracing',
  'startTask',
  'TaskStart',
  'createMemoryTaskStore',
  'joinRedisCluster',
  'redisRateLimitStore',
];

describe('public API', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual([...EXPORTS].sort());
  });
});

// The subpath entries, one per role: each a subset of the root, sharing its classes.
const ENTRIES: ReadonlyArray<[string, Record<string, unknown>, readonly string[]]> = [
  ['rxmcp/stdio', stdio, ['createStdioClientTransport', 'createStdioServerTransport']],
  ['rxmcp/proxy', proxyEntry, ['aggregate', 'createProxyRouter', 'proxy']],
  ['rxmcp/cluster', clusterEntry, ['joinRedisCluster', 'redisRateLimitStore']],
  [
    'rxmcp/auth',
    auth,
    [
      'InvalidTokenError',
      'OAuthError',
      'createFileOAuthStorage',
      'createMemoryOAuthStorage',
      'createOAuthClient',
      'createResourceServer',
      'introspectionVerifier',
      'jwtVerifier',
      'principalOf',
      'startLoopbackRedirect',
    ],
  ],
  ['rxmcp/websocket', websocket, ['createWebSocketClientTransport', 'createWebSocketHandler', 'startWebSocketServer']],
  [
    'rxmcp/http-client',
    httpClient,
    ['REQUEST_OUTCOME_UNKNOWN', 'SessionNotFoundError', 'createStreamableHttpClientTransport'],
  ],
  [
    'rxmcp/http',
    http,
    [
      'REQUEST_OUTCOME_UNKNOWN',
      'SessionNotFoundError',
      'createHttpClientTransport',
      'createInMemoryEventStore',
      'createLegacySseClientTransport',
      'createLegacySseHandler',
      'createStreamableHttpClientTransport',
      'createStreamableHttpFetchHandler',
      'createStreamableHttpHandler',
      'startStreamableHttpServer',
    ],
  ],
  [
    'rxmcp/server',
    server,
    [
      'CapabilityNotSupportedError',
      'ConnectionClosedError',
      'DEFAULT_CACHE_HINTS',
      'ErrorCode',
      'JsonRpcError',
      'LATEST_REVISION',
      'LOG_LEVELS',
      'MODERN_REVISIONS',
      'ProtocolError',
      'RequestTimeoutError',
      'STATEFUL_REVISIONS',
      'SUPPORTED_REVISIONS',
      'ToolError',
      'TransportError',
      'compileJsonSchema',
      'createInMemoryPair',
      'createServer',
      'log',
      'parseUriTemplate',
      'progress',
      'textResult',
      'RequestSent',
      'isResultEvent',
      'logging',
      'metrics',
      'timing',
      'TracingUnavailableError',
      'authorize',
      'cache',
      'callerOf',
      'rateLimit',
      'createMemoryRateLimitStore',
      'concurrencyLimit',
      'toolPolicy',
      'serverTracing',
      'SKILLS_EXTENSION',
      'skillDigest',
      'FrontmatterError',
      'parseSkillDocument',
      'clientExtension',
      'clientSupportsExtension',
      'loadSkillFolder',
      'serveSkills',
      'appsMiddleware',
      'clientSupportsApps',
      'serveApps',
      'UI_EXTENSION',
      'UI_MIME_TYPE',
      'startTask',
      'createMemoryTaskStore',
      'TASKS_EXTENSION',
    ],
  ],
  [
    'rxmcp/client',
    client,
    [
      'CapabilityNotSupportedError',
      'ConnectionClosedError',
      'ErrorCode',
      'InputRoundsExceededError',
      'JsonRpcError',
      'KeepaliveTimeoutError',
      'LATEST_REVISION',
      'LegacyServerError',
      'MODERN_REVISIONS',
      'MissingPageError',
      'NotInitializedError',
      'PageLimitError',
      'ProtocolError',
      'RepeatedCursorError',
      'RequestTimeoutError',
      'STATEFUL_REVISIONS',
      'SUPPORTED_REVISIONS',
      'TransportError',
      'UnsupportedProtocolVersionError',
      'applyElicitationDefaults',
      'connect',
      'toolResult',
      'taskResult',
      'TaskCancelledError',
      'TaskNotSupportedError',
      'TASKS_EXTENSION',
      'RequestSent',
      'isResultEvent',
      'logging',
      'metrics',
      'timing',
      'TracingUnavailableError',
      'retrying',
      'withMeta',
      'clientTracing',
      'SKILLS_EXTENSION',
      'skillDigest',
      'serverExtension',
      'serverExtensions',
      'serverSupportsExtension',
      'SkillVerificationError',
      'skillsClient',
    ],
  ],
];

describe.each(ENTRIES)('the %s entry', (_name, entry, names) => {
  it('exports exactly its documented names, the very values of the root', () => {
    expect(Object.keys(entry).sort()).toEqual([...names].sort());
    for (const name of names) expect(entry[name]).toBe((api as Record<string, unknown>)[name]);
  });
});

describe('the rxmcp/core entry', () => {
  const CORE = [
    'MalformedFrame',
    'cancelRequestOnUnsubscribe',
    'createConnection',
    'featuresOf',
    'hasCapability',
    'progressNotification',
  ];

  it('exports exactly the building blocks, none of which the root carries', () => {
    expect(Object.keys(core).sort()).toEqual(CORE);
    for (const name of CORE) expect(name in api).toBe(false);
  });
});

describe('the schema types', () => {
  it('come from the root and from rxmcp/server alike (checked by tsc)', () => {
    const schema: server.ToolSchema<{ n: number }> = z3.object({ n: z3.number() });
    const standard: api.StandardSchemaV1<unknown, { n: number }> = z3.object({ n: z3.number() });
    const output: api.InferOutput<typeof standard> = { n: 1 };
    const json: server.StandardJsonSchemaV1 | undefined = undefined;
    const convert: api.ToJsonSchema = (_schema: server.StandardSchemaV1, _io) => ({ type: 'object' });
    const issue: api.StandardIssue = { message: 'm', path: ['a', { key: 0 }] };
    const rooted: api.ToolSchema<{ n: number }> = standard;
    expect([rooted === standard, schema === standard, output, json, typeof convert, issue.path]).toEqual([
      true,
      false,
      { n: 1 },
      undefined,
      'function',
      ['a', { key: 0 }],
    ]);
  });
});
