import { NEVER } from 'rxjs';
import type { Observable } from 'rxjs';
import type { Logger } from 'pino';
import type { HandlerOutput } from '../connection/dispatcher';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { createFanOut } from '../operators/ref-count-fan-out';
import type { Annotations, Icon } from '../schema/base';
import { describeIssues, toValidationIssues } from '../schema/issues';
import { resourceSchemas } from '../schema/resources';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../schema/resources';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import type { Completer } from './completion';
import { runHandler } from './handler-output';
import { createRegistry } from './registry';
import type { Registration } from './registry';
import { adaptListed, completeResult } from './revision-adapter';
import { isStatelessRevision } from '../connection/stateless';
import type { CacheHint } from '../connection/stateless';
import type { ServerContext } from './server-context';
import { parseUriTemplate } from './uri-template';
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

interface ListedMetadata {
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
  readonly read?: (uri: string, context: ServerContext) => HandlerOutput<ReadResourceOutput>;
  /**
   * Changes of the resource. Subscribed while at least one session is subscribed to the URI, and
   * unsubscribed when the last one leaves; each value sends `notifications/resources/updated` to
   * the subscribed sessions.
   */
  readonly watch?: (uri: string) => Observable<unknown>;
  /**
   * Caching hints for `resources/read` under a stateless revision (2026-07-28 on): how long the
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
  /** Caching hints for reads of the family under a stateless revision (see `ResourceDefinition.cache`). */
  readonly cache?: CacheHint;
}

/** A registered resource's or template's handle. */
export type RegisteredResource = Registration;

interface StaticEntry {
  readonly definition: ResourceDefinition;
  readonly listing: Resource;
}

interface TemplateEntry {
  readonly definition: ResourceTemplateDefinition;
  readonly template: UriTemplate;
  readonly listing: ResourceTemplate;
}

function listingOf(definition: ListedMetadata, identity: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const listing: Record<string, unknown> = { ...identity, name: definition.name };
  for (const key of ['title', 'description', 'mimeType', 'annotations', 'icons', '_meta'] as const) {
    if (definition[key] !== undefined) listing[key] = definition[key];
  }
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) listing[key] = value;
  return listing;
}

/** One page of `resources/list`. */
export type ListResourcesPage = {
  readonly resources: Resource[];
  readonly nextCursor?: string;
};

// Cursors into what templates list: the template's registration and how many of its items were sent.
const LISTED_CURSOR = /^listed-resources:(\d+):(\d+)$/;
const encodeListedCursor = (seq: number, offset: number) =>
  Buffer.from(`listed-resources:${seq}:${offset}`).toString('base64url');
function decodeListedCursor(cursor: string): { seq: number; offset: number } | undefined {
  const match = LISTED_CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? { seq: Number(match[1]), offset: Number(match[2]) } : undefined;
}

/** The resources and resource templates of a server, and the watchers of subscribed URIs. */
export interface ResourceRegistry {
  addResource(definition: ResourceDefinition): RegisteredResource;
  addTemplate(definition: ResourceTemplateDefinition): RegisteredResource;
  /** How many resources and templates are registered. */
  readonly size: number;
  /** Emits when `resources/list` changes. */
  readonly resourcesChanged$: Observable<void>;
  /** Emits when `resources/templates/list` changes. */
  readonly templatesChanged$: Observable<void>;
  /**
   * Answers `resources/list`: one page of the fixed resources, then of what the templates' `list`
   * handlers name. At once while only fixed resources are on the page; a Promise once a template
   * is asked. A cursor this registry did not issue throws -32602.
   */
  listResources(
    cursor: string | undefined,
    pageSize: number,
    context: ServerContext,
  ): ListResourcesPage | Promise<ListResourcesPage>;
  listTemplates(
    cursor: string | undefined,
    pageSize: number,
    revision: Revision,
  ): { resourceTemplates: ResourceTemplate[]; nextCursor?: string };
  /** Answers `resources/read`; an unknown URI throws the revision's resource-not-found error. */
  read(uri: string, context: ServerContext): HandlerOutput<ReadResourceResult>;
  /** The scopes reading a URI needs: its resource's, else its template's (none for an unknown one). */
  scopes(uri: string): readonly string[];
  /** Whether a URI names a resource (an enabled static one, or one an enabled template matches). */
  exists(uri: string): boolean;
  /** The template registered with exactly this URI template text, if enabled. */
  template(uriTemplate: string): ResourceTemplateDefinition | undefined;
  /** Changes of a URI, shared by every session subscribed to it (see `watch` in the definitions). */
  watch(uri: string): Observable<unknown>;
  /** How many URIs are being watched. */
  readonly watched: number;
}

/** What checking a read's or a listing's output needs. */
interface ResultChecks {
  readonly logger: Logger;
  readonly validateResults: boolean;
  readonly readCacheHint: CacheHint | undefined;
}

/** The error for an unknown resource, by revision. */
export function resourceNotFound(uri: string, revision: Revision): JsonRpcError {
  // 2026-07-28 answers an unknown resource with -32602 (SEP-2164).
  const code = isStatelessRevision(revision) ? ErrorCode.InvalidParams : featuresOf(revision).resourceNotFoundCode;
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

/** Creates empty resource registries. */
export function createResourceRegistry(options: {
  readonly validateResults: boolean;
  readonly logger: Logger;
  /** The caching hints of a read under a stateless revision when the resource sets none. */
  readonly readCacheHint?: CacheHint;
}): ResourceRegistry {
  const resources = createRegistry<StaticEntry>('resources');
  const templates = createRegistry<TemplateEntry>('resource-templates');
  const log = options.logger;

  const matchTemplate = (uri: string): { entry: TemplateEntry; variables: UriTemplateVariables } | undefined => {
    for (const { definition: entry } of templates.enabled()) {
      const variables = entry.template.match(uri);
      if (variables) return { entry, variables };
    }
    return undefined;
  };

  const watchers = createFanOut<string, unknown>({
    open: (uri) => {
      const found = resources.get(uri)?.definition.definition;
      if (found) return found.watch?.(uri) ?? NEVER;
      const matched = matchTemplate(uri);
      return matched?.entry.definition.watch?.(uri, matched.variables) ?? NEVER;
    },
  });

  const checks: ResultChecks = {
    logger: log,
    validateResults: options.validateResults,
    readCacheHint: options.readCacheHint,
  };

  return {
    addResource(definition) {
      if (definition.read === undefined && definition.text === undefined && definition.blob === undefined) {
        throw new TypeError(`resource ${definition.uri} needs text, blob or a read handler`);
      }
      const listing = listingOf(definition, { uri: definition.uri }, { size: definition.size }) as Resource;
      return resources.registration(resources.add(definition.uri, { definition, listing }, definition.enabled ?? true));
    },
    addTemplate(definition) {
      const template = parseUriTemplate(definition.uriTemplate);
      const listing = listingOf(definition, { uriTemplate: definition.uriTemplate }) as ResourceTemplate;
      return templates.registration(
        templates.add(definition.uriTemplate, { definition, template, listing }, definition.enabled ?? true),
      );
    },
    get size() {
      return resources.size + templates.size;
    },
    resourcesChanged$: resources.changed$,
    templatesChanged$: templates.changed$,
    listResources(cursor, pageSize, context) {
      const revision = context.revision as Revision;
      const features = featuresOf(revision);
      const listed = cursor === undefined ? undefined : decodeListedCursor(cursor);
      let page: Resource[] = [];
      if (!listed) {
        const fixed = resources.page(cursor, pageSize);
        page = fixed.entries.map((entry) => adaptListed(entry.definition.listing, 'resource', features));
        if (fixed.nextCursor !== undefined) return { resources: page, nextCursor: fixed.nextCursor };
      }
      const sources = [...templates.enabled()].filter(
        (entry) => entry.definition.definition.list && (!listed || entry.seq >= listed.seq),
      );
      if (sources.length === 0) return { resources: page };
      return (async () => {
        for (const source of sources) {
          const start = listed?.seq === source.seq ? listed.offset : 0;
          // A full page asks no further template.
          if (page.length >= pageSize) return { resources: page, nextCursor: encodeListedCursor(source.seq, start) };
          const items = await templateItems(checks, source.definition, context);
          for (let i = start; i < items.length; i++) {
            if (page.length >= pageSize) return { resources: page, nextCursor: encodeListedCursor(source.seq, i) };
            page.push(adaptListed(listedResource(checks, source.definition, items[i], revision), 'resource', features));
          }
        }
        return { resources: page };
      })();
    },
    listTemplates(cursor, pageSize, revision) {
      const page = templates.page(cursor, pageSize);
      const features = featuresOf(revision);
      const list = page.entries.map((entry) => adaptListed(entry.definition.listing, 'template', features));
      return page.nextCursor === undefined
        ? { resourceTemplates: list }
        : { resourceTemplates: list, nextCursor: page.nextCursor };
    },
    read(uri, context) {
      const revision = context.revision as Revision;
      const found = resources.get(uri)?.definition.definition;
      if (found) {
        if (!found.read) {
          const item = found.text !== undefined ? { text: found.text } : { blob: found.blob! };
          return completeRead(checks, uri, found.mimeType, { contents: [item] }, revision, found.cache);
        }
        return runHandler(
          () => found.read!(uri, context),
          (value) => completeRead(checks, uri, found.mimeType, value, revision, found.cache),
        );
      }
      const matched = matchTemplate(uri);
      if (!matched) throw resourceNotFound(uri, revision);
      const { definition } = matched.entry;
      return runHandler(
        () => definition.read(uri, matched.variables, context),
        (value) => completeRead(checks, uri, definition.mimeType, value, revision, definition.cache),
      );
    },
    exists: (uri) => resources.get(uri) !== undefined || matchTemplate(uri) !== undefined,
    scopes: (uri) =>
      resources.get(uri)?.definition.definition.scopes ?? matchTemplate(uri)?.entry.definition.scopes ?? [],
    template: (uriTemplate) => templates.get(uriTemplate)?.definition.definition,
    watch: (uri) => watchers.watch(uri),
    get watched() {
      return watchers.size();
    },
  };
}
