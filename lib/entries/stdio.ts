// rxmcp/stdio: the stdio transports, server side and the client that spawns a server process.
export { createStdioServerTransport } from '../transport/stdio/stdio-server-transport';
export type { StdioServerTransportOptions } from '../transport/stdio/stdio-server-transport';
export { createStdioClientTransport } from '../transport/stdio/stdio-client-transport';
export type { StdioClientTransport, StdioClientTransportOptions } from '../transport/stdio/stdio-client-transport';
