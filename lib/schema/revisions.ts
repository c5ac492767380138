/**
 * The MCP protocol revisions rxmcp speaks, and what differs between them. Everything here is data:
 * a new revision is one more entry in `SUPPORTED_REVISIONS` and one more row in the feature table.
 */

/**
 * The protocol revisions rxmcp speaks, oldest first: the handshake family (2024-11-05 through
 * 2025-11-25) and the modern family (2026-07-28).
 */
export const SUPPORTED_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/** One supported protocol revision, e.g. `'2025-06-18'`. */
export type Revision = (typeof SUPPORTED_REVISIONS)[number];

/**
 * The newest supported revision. It is modern: a server that gets `initialize` with an unknown
 * version answers with `LATEST_LEGACY_REVISION` instead.
 */
export const LATEST_REVISION: Revision = '2026-07-28';

/**
 * The revisions that open with the `initialize` handshake and hold a session (2024-11-05 through
 * 2025-11-25), oldest first: what `initialize` negotiates among.
 */
export const LEGACY_REVISIONS = [
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25',
] as const satisfies readonly Revision[];

/** One revision of the handshake family. */
export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];

/** The newest handshake revision: what a server answers `initialize` with when the client's is unknown. */
export const LATEST_LEGACY_REVISION: LegacyRevision = '2025-11-25';

/** Whether `value` names a revision of the handshake family that rxmcp speaks. */
export function isLegacyRevision(value: string): value is LegacyRevision {
  return (LEGACY_REVISIONS as readonly string[]).includes(value);
}

/**
 * The modern revisions (2026-07-28 on), oldest first: no `initialize` handshake and no session;
 * every request carries its revision, the client's capabilities and identity in `_meta`.
 */
export const MODERN_REVISIONS = ['2026-07-28'] as const satisfies readonly Revision[];

/** One revision of the modern family. */
export type ModernRevision = (typeof MODERN_REVISIONS)[number];

/** Whether `value` names a revision of the modern family that rxmcp speaks. */
export function isModernRevision(value: string): value is ModernRevision {
  // A loop the compiler inlines: asked for every forwarded call, where `includes` is a builtin's call.
  for (const modern of MODERN_REVISIONS) if (modern === value) return true;
  return false;
}

/** Whether `value` names a revision rxmcp supports. */
export function isSupportedRevision(value: string): value is Revision {
  return (SUPPORTED_REVISIONS as readonly string[]).includes(value);
}

/**
 * Whether `revision` is `since` or newer. Revisions are ISO dates, so they order as strings; this
 * also holds for revisions not in `SUPPORTED_REVISIONS`, such as one a peer proposes.
 */
export function revisionAtLeast(revision: string, since: string): boolean {
  return revision >= since;
}

/** Whether `revision` lies in `[since, until]` (both inclusive; no `until` means still current). */
export function revisionWithin(revision: string, since: string, until?: string): boolean {
  return revision >= since && (until === undefined || revision <= until);
}

/** The HTTP transport a revision defines. */
export type HttpTransportKind = 'http+sse' | 'streamable-http';

/** What a runtime branches on for one revision. Flags are true when the revision has the feature. */
export interface RevisionFeatures {
  readonly revision: Revision;
  /** JSON-RPC batches (arrays of messages) are allowed: 2025-03-26 only. */
  readonly batching: boolean;
  /**
   * The JSON-RPC error code for an unknown resource URI: -32002 through 2025-11-25, -32602
   * (invalid params) from 2026-07-28, which reserves -32002.
   */
  readonly resourceNotFoundCode: number;
  /** The HTTP transport of the revision: HTTP+SSE (two endpoints) or Streamable HTTP. */
  readonly httpTransport: HttpTransportKind;
  /** OAuth 2.1 authorization for HTTP transports. */
  readonly authorization: boolean;
  /** Servers are OAuth resource servers with protected resource metadata (RFC 9728, RFC 8707). */
  readonly protectedResourceMetadata: boolean;
  /** OAuth client ID metadata documents as a registration mechanism. */
  readonly clientIdMetadataDocuments: boolean;
  /**
   * HTTP requests carry the `MCP-Protocol-Version` header: after initialization (2025-06-18 and
   * 2025-11-25), on every request (2026-07-28, where it must match `_meta`).
   */
  readonly protocolVersionHeader: boolean;
  /**
   * A Streamable HTTP server may close an SSE stream at will; the client polls with `retry` and
   * resumes with `Last-Event-ID` (2025-11-25 only: 2026-07-28 has no resumable streams, a broken
   * response stream loses its request).
   */
  readonly ssePolling: boolean;
  /** `AudioContent` in tool results, prompts and sampling. */
  readonly audioContent: boolean;
  /** `annotations` on tools (read-only, destructive, idempotent, open-world hints). */
  readonly toolAnnotations: boolean;
  /** `message` in `notifications/progress`. */
  readonly progressMessage: boolean;
  /** The server declares a `completions` capability before clients may call `completion/complete`. */
  readonly completionsCapability: boolean;
  /** `structuredContent` in tool results and `outputSchema` on tools. */
  readonly structuredContent: boolean;
  /** Form-mode elicitation: `elicitation/create` (through 2025-11-25), an input request (2026-07-28). */
  readonly elicitation: boolean;
  /**
   * URL-mode elicitation (from 2025-11-25). Only 2025-11-25 adds `elicitationId`,
   * `notifications/elicitation/complete` and error -32042: see `elicitationCompletion`.
   */
  readonly urlElicitation: boolean;
  /**
   * `elicitationId` on URL-mode requests, `notifications/elicitation/complete` and the -32042
   * `URLElicitationRequiredError`: 2025-11-25 only (2026-07-28 learns the outcome by the retry).
   */
  readonly elicitationCompletion: boolean;
  /** Default values and titled/multi-select enums in elicitation schemas. */
  readonly elicitationEnumVariants: boolean;
  /** `resource_link` content blocks. */
  readonly resourceLinks: boolean;
  /** `title` fields (human-readable names) on tools, prompts, resources and implementations. */
  readonly titles: boolean;
  /** `context.arguments` in `completion/complete`. */
  readonly completionContext: boolean;
  /** `icons` on implementations, tools, prompts, resources and templates. */
  readonly icons: boolean;
  /**
   * Task-augmented requests and the `tasks/*` methods: experimental in 2025-11-25; 2026-07-28 moved
   * them out of the core protocol into the `io.modelcontextprotocol/tasks` extension.
   */
  readonly tasks: boolean;
  /** `tools` and `toolChoice` in `sampling/createMessage`, tool use and tool result content. */
  readonly samplingTools: boolean;
  /** JSON-RPC request and notification definitions carry `jsonrpc` (and `id`) themselves. */
  readonly envelopeInDefinitions: boolean;
  /**
   * No `initialize` handshake, no session, no `ping` or `logging/setLevel`: every request carries
   * its revision, the client's capabilities, identity and log level in `_meta`, and the server
   * answers `server/discover` (2026-07-28 on).
   */
  readonly modern: boolean;
  /** Every result carries `resultType` (`complete`, or `input_required` for a multi round-trip step). */
  readonly resultType: boolean;
  /**
   * Results of discovery, the lists and `resources/read` carry the caching hints `ttlMs` and
   * `cacheScope` (`CacheableResult`).
   */
  readonly cacheableResults: boolean;
  /**
   * Multi round-trip requests: instead of sending `sampling/createMessage`, `elicitation/create`
   * or `roots/list`, a server answers `tools/call`, `prompts/get` or `resources/read` with an
   * `InputRequiredResult` and the client retries with `inputResponses` and `requestState`.
   */
  readonly multiRoundTrip: boolean;
  /**
   * `subscriptions/listen` and `notifications/subscriptions/acknowledged` replace the HTTP GET
   * stream and `resources/subscribe`/`resources/unsubscribe`.
   */
  readonly subscriptionsListen: boolean;
  /**
   * Streamable HTTP POSTs carry the standard `Mcp-Method` and `Mcp-Name` headers, and tool
   * arguments annotated with `x-mcp-header` as `Mcp-Param-*` headers; a mismatch is error -32020.
   */
  readonly requestHeaders: boolean;
  /** `extensions` in client and server capabilities. */
  readonly extensions: boolean;
  /** The JSON Schema dialect the revision's schema is written in. */
  readonly jsonSchemaDialect: 'draft-07' | '2020-12';
}

type FeatureFlag = {
  [K in keyof RevisionFeatures]: RevisionFeatures[K] extends boolean ? K : never;
}[keyof RevisionFeatures];

/** The revision range in which each flag holds; `until` is inclusive. */
const FLAG_RANGES: Readonly<Record<FeatureFlag, { readonly since: Revision; readonly until?: Revision }>> = {
  batching: { since: '2025-03-26', until: '2025-03-26' },
  authorization: { since: '2025-03-26' },
  protectedResourceMetadata: { since: '2025-06-18' },
  clientIdMetadataDocuments: { since: '2025-11-25' },
  protocolVersionHeader: { since: '2025-06-18' },
  ssePolling: { since: '2025-11-25', until: '2025-11-25' },
  audioContent: { since: '2025-03-26' },
  toolAnnotations: { since: '2025-03-26' },
  progressMessage: { since: '2025-03-26' },
  completionsCapability: { since: '2025-03-26' },
  structuredContent: { since: '2025-06-18' },
  elicitation: { since: '2025-06-18' },
  urlElicitation: { since: '2025-11-25' },
  elicitationCompletion: { since: '2025-11-25', until: '2025-11-25' },
  elicitationEnumVariants: { since: '2025-11-25' },
  resourceLinks: { since: '2025-06-18' },
  titles: { since: '2025-06-18' },
  completionContext: { since: '2025-06-18' },
  icons: { since: '2025-11-25' },
  tasks: { since: '2025-11-25', until: '2025-11-25' },
  samplingTools: { since: '2025-11-25' },
  envelopeInDefinitions: { since: '2025-11-25' },
  modern: { since: '2026-07-28' },
  resultType: { since: '2026-07-28' },
  cacheableResults: { since: '2026-07-28' },
  multiRoundTrip: { since: '2026-07-28' },
  subscriptionsListen: { since: '2026-07-28' },
  requestHeaders: { since: '2026-07-28' },
  extensions: { since: '2026-07-28' },
};

const featureCache = new Map<Revision, RevisionFeatures>();

/** The features of one revision; the object is built once per revision and frozen. */
export function featuresOf(revision: Revision): RevisionFeatures {
  const cached = featureCache.get(revision);
  if (cached) return cached;
  const flags = Object.fromEntries(
    Object.entries(FLAG_RANGES).map(([flag, range]) => [flag, revisionWithin(revision, range.since, range.until)]),
  ) as Record<FeatureFlag, boolean>;
  const features: RevisionFeatures = Object.freeze({
    ...flags,
    revision,
    // -32002 through 2025-11-25; 2026-07-28 answers -32602 and reserves -32002 (Basic → Error Codes).
    resourceNotFoundCode: revisionAtLeast(revision, '2026-07-28') ? -32602 : -32002,
    httpTransport: revisionAtLeast(revision, '2025-03-26') ? 'streamable-http' : 'http+sse',
    jsonSchemaDialect: revisionAtLeast(revision, '2025-11-25') ? '2020-12' : 'draft-07',
  });
  featureCache.set(revision, features);
  return features;
}

/**
 * Why a JSON-RPC batch is refused under `revision`; undefined where batches are accepted (only
 * 2025-03-26: Basic → Messages) or the revision is not one rxmcp knows. The one wording of the
 * refusal, on a connection and at the HTTP endpoint alike.
 */
export function batchRefusal(revision: string): string | undefined {
  if (!isSupportedRevision(revision) || featuresOf(revision).batching) return undefined;
  return `JSON-RPC batches are not supported by protocol revision ${revision}`;
}
