import * as api from '../lib/index';

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
  'MalformedFrame',
  'NotInitializedError',
  'ProgressUpdate',
  'ProtocolError',
  'RequestTimeoutError',
  'SUPPORTED_REVISIONS',
  'TransportError',
  'UnsupportedProtocolVersionError',
  'cancelOnUnsubscribe',
  'cancelRequestOnUnsubscribe',
  'applyElicitationDefaults',
  'connect',
  'KeepaliveTimeoutError',
  'toolResult',
  'createConnection',
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
  'createInMemoryEventStore',
  'startStreamableHttpServer',
  'createStreamableHttpHandler',
  'featuresOf',
  'isSupportedRevision',
  'log',
  'progress',
  'progressFor',
  'timeoutWithReset',
  'ToolError',
  'MAX_COMPLETION_VALUES',
  'parseUriTemplate',
  'compileJsonSchema',
];

describe('public API', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual([...EXPORTS].sort());
  });
});
