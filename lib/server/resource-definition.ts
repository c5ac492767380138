/**
 * What a resource is: the definitions of fixed resources and of template families, what is listed
 * for them, and how what their handlers produced becomes the result sent.
 */
import type { Observable } from '../rx/rxjs';
import type { Logger } from 'pino';
import type { HandlerOutput } from '../connection/dispatcher';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { Annotations, Icon } from '../schema/base';
import { describeIssues, toValidationIssues } from '../validation/issues';
import { resourceSchemas } from '../schema/resources';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../schema/resources';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import type { Completer } from './completion';
import type { Registration } from './registry';
import { completeResult } from './revision-adapter';
import { isModernRevision } from '../connection/modern';
import type { CacheHint } from '../connection/modern';
import type { ServerContext } from './server-context';
import type { UriTemplate, UriTemplateVariables } from './uri-template';

/** One contents item as a read handler returns it; `uri` and `mimeType` default to the resource's. */
export type ResourceContentsInput = {
  readonly uri?: string;
  readonly mimeType?: string;
  readonly _meta?: Record<string, unknown>;
} & ({ readonly text: string } | { readonly blob: string });

/** What a read handler returns: the contents (usually one item) of the resource. */
export interface ReadResourceOutput {
  readonly contents: readonly ResourceContentsInput[];
  readonly _meta?: Record<string, unknown>;
}

/** What a resource or template shows in a listing besides its URI: title, description, MIME type, size, icons, annotations. */
export interface ListedMetadata {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly annotations?: Annotations;
  readonly icons?: readonly Icon[];
  readonly _meta?: Record<string, unknown>;
  /** Register it disabled until `enable()`. Default true. */
  readonly enabled?: boolean;
  /**
   * OAuth scopes a caller's token must carry to use it, on a protected endpoint (`auth`); a token
   * without them is answered 403 `insufficient_scope` naming them.
   */
  readonly scopes?: readonly string[];
}

/**
 * A resource with a fixed URI. Give its contents as `text` or `blob` (base64) when they never
 * change, or a `read` handler (a value, a Promise or an Observable of the contents).
 */
export interface ResourceDefinition extends ListedMetadata {
  readonly uri: string;
  readonly size?: number;
  readonly text?: string;
  readonly blob?: string;
  /** Reads the resource on each `resources/read`, instead of a fixed `text` or `blob`. */
  readonly read?: (uri: string, context: ServerContext) => HandlerOutput<ReadResourceOutput>;
  /**
   * Changes of the resource. Subscribed while at least one session is subscribed to the URI, and
   * unsubscribed when the last one leaves; each value sends `notifications/resources/updated` to
   * the subscribed sessions.
   */
  readonly watch?: (uri: string) => Observable<unknown>;
  /**
   * Caching hints for `resources/read` under a modern revision (2026-07-28 on): how long the
   * contents stay fresh and who may share them. Default: the server's `cacheHints['resources/read']`.
   */
  readonly cache?: CacheHint;
}

/** One resource of a template's family as its `list` names it; `mimeType` defaults to the template's. */
export interface ListedResource extends Omit<ListedMetadata, 'enabled'> {
  readonly uri: string;
  readonly size?: number;
}

/** A family of resources named by an RFC 6570 URI template. */
export interface ResourceTemplateDefinition extends ListedMetadata {
  readonly uriTemplate: string;
  /**
   * The resources of the family that exist now, for `resources/list`: they follow the fixed
   * resources, template by template in registration order. A value or a Promise (the context's
   * `signal` aborts when the request is cancelled). It is called again for each page that reaches
   * this template, so pages stay consistent only while the family does. Without it, the family's
   * resources are reached through the template alone.
   */
  readonly list?: (context: ServerContext) => readonly ListedResource[] | PromiseLike<readonly ListedResource[]>;
  /** Reads one resource of the family: `variables` are the template's, matched from the URI. */
  readonly read: (
    uri: string,
    variables: UriTemplateVariables,
    context: ServerContext,
  ) => HandlerOutput<ReadResourceOutput>;
  /** Completions for the template's variables (`completion/complete` with `ref/resource`). */
  readonly complete?: Readonly<Record<string, Completer>>;
  /** Changes of one resource of the family, as `ResourceDefinition.watch`. */
  readonly watch?: (uri: string, variables: UriTemplateVariables) => Observable<unknown>;
  /** Caching hints for reads of the family under a modern revision (see `ResourceDefinition.cache`). */
  readonly cache?: CacheHint;
}

/** A registered resource's or template's handle. */
export type RegisteredResource = Registration;

/** A registered fixed resource and its listing. */
export interface StaticEntry {
  readonly definition: ResourceDefinition;
  readonly listing: Resource;
}

/** A registered template, parsed, and its listing. */
export interface TemplateEntry {
  readonly definition: ResourceTemplateDefinition;
  readonly template: UriTemplate;
  readonly listing: ResourceTemplate;
}

/** The listing of a resource or template: `identity` (its URI or URI template), its metadata, and `extra`. */
export function listingOf(
  definition: ListedMetadata,
  identity: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const listing: Record<string, unknown> = { ...identity, name: definition.name };
  for (const key of ['title', 'description', 'mimeType', 'annotations', 'icons', '_meta'] as const) {
    if (definition[key] !== undefined) listing[key] = definition[key];
  }
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) listing[key] = value;
  return listing;
}

/** What checking a read's or a listing's output needs. */
export interface ResultChecks {
  readonly logger: Logger;
  readonly validateResults: boolean;
  readonly readCacheHint: CacheHint | undefined;
}

/** The error for an unknown resource, by revision. */
export function resourceNotFound(uri: string, revision: Revision): JsonRpcError {
  // 2026-07-28 answers an unknown resource with -32602 (SEP-2164).
  const code = isModernRevision(revision) ? ErrorCode.InvalidParams : featuresOf(revision).resourceNotFoundCode;
  return new JsonRpcError(code, `Resource not found: ${uri}`, { uri });
}

/** A read's output as the result sent: URIs and MIME types filled in, caching hints added, checked when results are validated. */
export function completeRead(
  checks: ResultChecks,
  uri: string,
  mimeType: string | undefined,
  output: unknown,
  revision: Revision,
  cache?: CacheHint,
): ReadResourceResult {
  const produced = output as ReadResourceOutput | undefined;
  if (!produced || !Array.isArray(produced.contents)) {
    checks.logger.error({ uri }, 'resource read handler returned no contents');
    throw JsonRpcError.internalError();
  }
  const contents = produced.contents.map((item) => {
    const filled: Record<string, unknown> = { uri, ...item };
    if (filled.mimeType === undefined && mimeType !== undefined) filled.mimeType = mimeType;
    return filled;
  });
  const result = completeResult(
    { ...produced, contents } as ReadResourceResult,
    revision,
    cache ?? checks.readCacheHint,
  );
  if (checks.validateResults) {
    const parsed = resourceSchemas(revision).ReadResourceResult.safeParse(result);
    if (!parsed.success) {
      checks.logger.error(
        { uri, problem: describeIssues(toValidationIssues(parsed.error)) },
        'resource read returned invalid contents',
      );
      throw JsonRpcError.internalError();
    }
  }
  return result;
}

/** Runs a template's `list`; a failure other than a `JsonRpcError` is logged and answered -32603. */
export async function templateItems(
  checks: ResultChecks,
  entry: TemplateEntry,
  context: ServerContext,
): Promise<readonly unknown[]> {
  let items: unknown;
  try {
    items = await entry.definition.list!(context);
  } catch (error) {
    if (error instanceof JsonRpcError) throw error;
    checks.logger.error(
      { err: error, uriTemplate: entry.definition.uriTemplate },
      'resource template list handler failed',
    );
    throw JsonRpcError.internalError();
  }
  if (!Array.isArray(items)) {
    checks.logger.error(
      { uriTemplate: entry.definition.uriTemplate },
      'resource template list handler returned no array',
    );
    throw JsonRpcError.internalError();
  }
  return items;
}

/** One listed item as `resources/list` sends it, checked when results are validated. */
export function listedResource(
  checks: ResultChecks,
  entry: TemplateEntry,
  item: unknown,
  revision: Revision,
): Resource {
  const invalid = (problem: string): never => {
    checks.logger.error(
      { uriTemplate: entry.definition.uriTemplate, problem },
      'resource template listed an invalid resource',
    );
    throw JsonRpcError.internalError();
  };
  if (typeof item !== 'object' || item === null) return invalid('not an object');
  const listing = { ...item } as Record<string, unknown>;
  if (listing.mimeType === undefined && entry.definition.mimeType !== undefined)
    listing.mimeType = entry.definition.mimeType;
  if (checks.validateResults) {
    const checked = resourceSchemas(revision).Resource.safeParse(listing);
    if (!checked.success) return invalid(describeIssues(toValidationIssues(checked.error)));
  }
  return listing as Resource;
}
