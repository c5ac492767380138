// rxmcp/core: the building blocks under the server and the client, for writing a transport, a
// proxy or a peer of a role of your own. Nothing here is needed to serve or to call an MCP server.

// A JSON-RPC connection with its lifecycle machine: what `createServer` and `connect` run on.
export { createConnection } from '../connection/create-connection';
export type { Connection, ConnectionOptions, ConnectionState, Role } from '../connection/connection';
export type { InspectionObserver, LifecycleInspectionEvent, LifecycleInspector } from '../base/inspection';
export { hasCapability } from '../connection/capabilities';
// What a transport hands the connection when a frame cannot be parsed.
export { MalformedFrame } from '../transport/transport';
export type { InboundFrame, ModernExchange, ModernReceiver } from '../transport/transport';
// What each protocol revision has, as flags.
export { featuresOf } from '../schema/revisions';
export type { RevisionFeatures } from '../schema/revisions';
// The notifications behind the operators' cancellation and progress.
export { cancelRequestOnUnsubscribe } from '../operators/cancel-on-unsubscribe';
export { progressNotification } from '../operators/progress';
