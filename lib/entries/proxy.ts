// rxmcp/proxy: composition. A proxy or an aggregate of upstream servers, the router that carries
// their questions to the caller, and the policies of an aggregate's upstreams.
export { proxy } from '../proxy/proxy';
export type { McpProxy, ProxyOptions } from '../proxy/proxy';
export { createProxyRouter } from '../proxy/proxy-router';
export type { ProxyRouter, ProxyRouterOptions } from '../proxy/proxy-router';
export { aggregate } from '../proxy/aggregate';
export type { AggregateOptions, ReconfigurableAggregate } from '../proxy/aggregate';
export type {
  DownstreamInfo,
  UpstreamConfig,
  UpstreamConnectFunction,
  UpstreamConnector,
  UpstreamContext,
  UpstreamEntry,
} from '../proxy/upstream-source';
export type { ArgumentPolicy, PromptPolicy, ToolPolicy } from '../proxy/upstream-policy';
export type { EntryFilter, NameMatcher, NamePattern } from '../proxy/name-filter';
export type { CollisionPolicy } from '../proxy/collisions';
export type { UpstreamReconnectOptions } from '../proxy/reconnect';
