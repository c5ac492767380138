import { NEVER } from 'rxjs';
import type { Observable } from 'rxjs';
import type { Logger } from 'pino';
import type { HandlerOutput } from '../connection/dispatcher';
import { JsonRpcError } from '../jsonrpc/errors';
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
import { adaptListed } from './revision-adapter';
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
}

/** A family of resources named by an RFC 6570 URI template. */
export interface ResourceTemplateDefinition extends ListedMetadata {
  readonly uriTemplate: string;
  /** Reads one resource of the family: `variables` are the template's, matched from the URI. */
  readonly read: (uri: string, variables: UriTemplateVariables, context: ServerContext) => HandlerOutput<ReadResourceOutput>;
  /** Completions for the template's variables (`completion/complete` with `ref/resource`). */
  readonly complete?: Readonly<Record<string, Completer>>;
  /** Changes of one resource of the family, as `ResourceDefinition.watch`. */
  readonly watch?: (uri: string, variables: UriTemplateVariables) => Observable<unknown>;
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
  listResources(cursor: string | undefined, pageSize: number, revision: Revision): { resources: Resource[]; nextCursor?: string };
  listTemplates(
    cursor: string | undefined,
    pageSize: number,
    revision: Revision,
  ): { resourceTemplates: ResourceTemplate[]; nextCursor?: string };
  /** Answers `resources/read`; an unknown URI throws the revision's resource-not-found error. */
  read(uri: string, context: ServerContext): HandlerOutput<ReadResourceResult>;
  /** Whether a URI names a resource (an enabled static one, or one an enabled template matches). */
  exists(uri: string): boolean;
  /** The template registered with exactly this URI template text, if enabled. */
  template(uriTemplate: string): ResourceTemplateDefinition | undefined;
  /** Changes of a URI, shared by every session subscribed to it (see `watch` in the definitions). */
  watch(uri: string): Observable<unknown>;
  /** How many URIs are being watched. */
  readonly watched: number;
}

/** Creates empty resource registries. */
export function createResourceRegistry(options: { readonly validateResults: boolean; readonly logger: Logger }): ResourceRegistry {
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

  function notFound(uri: string, revision: Revision): JsonRpcError {
    return new JsonRpcError(featuresOf(revision).resourceNotFoundCode, `Resource not found: ${uri}`, { uri });
  }

  function complete(uri: string, mimeType: string | undefined, output: unknown, revision: Revision): ReadResourceResult {
    const produced = output as ReadResourceOutput | undefined;
    if (!produced || !Array.isArray(produced.contents)) {
      log.error({ uri }, 'resource read handler returned no contents');
      throw JsonRpcError.internalError();
    }
    const contents = produced.contents.map((item) => {
      const filled: Record<string, unknown> = { uri, ...item };
      if (filled.mimeType === undefined && mimeType !== undefined) filled.mimeType = mimeType;
      return filled;
    });
    const result = { ...produced, contents } as ReadResourceResult;
    if (options.validateResults) {
      const parsed = resourceSchemas(revision).ReadResourceResult.safeParse(result);
      if (!parsed.success) {
        log.error({ uri, problem: describeIssues(toValidationIssues(parsed.error)) }, 'resource read returned invalid contents');
        throw JsonRpcError.internalError();
      }
    }
    return result;
  }

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
      return templates.registration(templates.add(definition.uriTemplate, { definition, template, listing }, definition.enabled ?? true));
    },
    get size() {
      return resources.size + templates.size;
    },
    resourcesChanged$: resources.changed$,
    templatesChanged$: templates.changed$,
    listResources(cursor, pageSize, revision) {
      const page = resources.page(cursor, pageSize);
      const features = featuresOf(revision);
      const list = page.entries.map((entry) => adaptListed(entry.definition.listing, 'resource', features));
      return page.nextCursor === undefined ? { resources: list } : { resources: list, nextCursor: page.nextCursor };
    },
    listTemplates(cursor, pageSize, revision) {
      const page = templates.page(cursor, pageSize);
      const features = featuresOf(revision);
      const list = page.entries.map((entry) => adaptListed(entry.definition.listing, 'template', features));
      return page.nextCursor === undefined ? { resourceTemplates: list } : { resourceTemplates: list, nextCursor: page.nextCursor };
    },
    read(uri, context) {
      const revision = context.revision as Revision;
      const found = resources.get(uri)?.definition.definition;
      if (found) {
        if (!found.read) {
          const item = found.text !== undefined ? { text: found.text } : { blob: found.blob! };
          return complete(uri, found.mimeType, { contents: [item] }, revision);
        }
        return runHandler(
          () => found.read!(uri, context),
          (value) => complete(uri, found.mimeType, value, revision),
        );
      }
      const matched = matchTemplate(uri);
      if (!matched) throw notFound(uri, revision);
      const { definition } = matched.entry;
      return runHandler(
        () => definition.read(uri, matched.variables, context),
        (value) => complete(uri, definition.mimeType, value, revision),
      );
    },
    exists: (uri) => resources.get(uri) !== undefined || matchTemplate(uri) !== undefined,
    template: (uriTemplate) => templates.get(uriTemplate)?.definition.definition,
    watch: (uri) => watchers.watch(uri),
    get watched() {
      return watchers.size();
    },
  };
}
