import { NEVER } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { Logger } from 'pino';
import type { HandlerOutput } from '../connection/dispatcher';
import { createFanOut } from '../operators/ref-count-fan-out';
import type { FanOut } from '../operators/ref-count-fan-out';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../schema/resources';
import { featuresOf } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import { requestFailure } from './handler-failures';
import type { FailurePolicy } from './handler-failures';
import { runHandler } from './handler-output';
import { createRegistry } from './registry';
import type { ListChangeListener, Registry } from './registry';
import { completeRead, listedResource, listingOf, resourceNotFound, templateItems } from './resource-definition';
import type {
  RegisteredResource,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ResultChecks,
  StaticEntry,
  TemplateEntry,
} from './resource-definition';
import { adaptListed } from './revision-adapter';
import type { CacheHint } from '../connection/modern';
import type { ServerContext } from './server-context';
import { parseUriTemplate } from './uri-template';
import type { UriTemplateVariables } from './uri-template';

export { completeRead, listedResource, resourceNotFound, templateItems } from './resource-definition';
export type {
  ListedResource,
  ReadResourceOutput,
  RegisteredResource,
  ResourceContentsInput,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from './resource-definition';

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
  /** Told of each change of either list before it emits. */
  onChange: ListChangeListener | undefined;
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
  /**
   * Answers `resources/read`; an unknown URI throws the revision's resource-not-found error, and a
   * handler's failure answers -32603 with its message (see `requestFailure`).
   */
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

/** The fixed resources and the templates of one registry, and how their outputs are checked. */
interface ResourceStore {
  readonly resources: Registry<StaticEntry>;
  readonly templates: Registry<TemplateEntry>;
  readonly checks: ResultChecks;
  readonly failures: FailurePolicy;
}

/** The first enabled template that matches a URI, with the variables it matched. */
function matchTemplate(
  templates: Registry<TemplateEntry>,
  uri: string,
): { entry: TemplateEntry; variables: UriTemplateVariables } | undefined {
  for (const { definition: entry } of templates.enabled()) {
    const variables = entry.template.match(uri);
    if (variables) return { entry, variables };
  }
  return undefined;
}

/** Answers `resources/list`: see `ResourceRegistry.listResources`. */
function listResources(
  { resources, templates, checks }: ResourceStore,
  cursor: string | undefined,
  pageSize: number,
  context: ServerContext,
): ListResourcesPage | Promise<ListResourcesPage> {
  const revision = context.revision;
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
}

/** Answers `resources/read`: a fixed resource's contents or handler, else the matching template's handler. */
function readResource(
  { resources, templates, checks, failures }: ResourceStore,
  uri: string,
  context: ServerContext,
): HandlerOutput<ReadResourceResult> {
  const revision = context.revision;
  const failed = (error: unknown) => requestFailure(failures, `Reading resource ${uri}`, error, context, { uri });
  const found = resources.get(uri)?.definition.definition;
  if (found) {
    if (!found.read) {
      const item = found.text !== undefined ? { text: found.text } : { blob: found.blob! };
      return completeRead(checks, uri, found.mimeType, { contents: [item] }, revision, found.cache);
    }
    return runHandler(
      () => found.read!(uri, context),
      (value) => completeRead(checks, uri, found.mimeType, value, revision, found.cache),
      failed,
    );
  }
  const matched = matchTemplate(templates, uri);
  if (!matched) throw resourceNotFound(uri, revision);
  const { definition } = matched.entry;
  return runHandler(
    () => definition.read(uri, matched.variables, context),
    (value) => completeRead(checks, uri, definition.mimeType, value, revision, definition.cache),
    failed,
  );
}

interface ResourceRegistryOptions {
  readonly validateResults: boolean;
  readonly logger: Logger;
  /** How a read handler's unexpected failure is answered and logged. */
  readonly failures: FailurePolicy;
  /** The caching hints of a read under a modern revision when the resource sets none. */
  readonly readCacheHint: CacheHint | undefined;
}

/** The resources and templates of one server definition. */
class Resources implements ResourceRegistry {
  private readonly store: ResourceStore;
  private watchers: FanOut<string, unknown> | undefined;

  constructor(options: ResourceRegistryOptions) {
    this.store = {
      resources: createRegistry<StaticEntry>('resources'),
      templates: createRegistry<TemplateEntry>('resource-templates'),
      // The options are the checks' own fields: kept as they are rather than copied.
      checks: options,
      failures: options.failures,
    };
  }

  get size(): number {
    return this.store.resources.size + this.store.templates.size;
  }

  get resourcesChanged$(): Observable<void> {
    return this.store.resources.changed$;
  }

  get templatesChanged$(): Observable<void> {
    return this.store.templates.changed$;
  }

  set onChange(listener: ListChangeListener | undefined) {
    this.store.resources.onChange = listener;
    this.store.templates.onChange = listener;
  }

  get watched(): number {
    return this.watchers?.size() ?? 0;
  }

  addResource(definition: ResourceDefinition): RegisteredResource {
    if (definition.read === undefined && definition.text === undefined && definition.blob === undefined) {
      throw new TypeError(`resource ${definition.uri} needs text, blob or a read handler`);
    }
    const listing = listingOf(definition, { uri: definition.uri }, { size: definition.size }) as Resource;
    const { resources } = this.store;
    return resources.registration(resources.add(definition.uri, { definition, listing }, definition.enabled ?? true));
  }

  addTemplate(definition: ResourceTemplateDefinition): RegisteredResource {
    const template = parseUriTemplate(definition.uriTemplate);
    const listing = listingOf(definition, { uriTemplate: definition.uriTemplate }) as ResourceTemplate;
    const { templates } = this.store;
    return templates.registration(
      templates.add(definition.uriTemplate, { definition, template, listing }, definition.enabled ?? true),
    );
  }

  listResources(
    cursor: string | undefined,
    pageSize: number,
    context: ServerContext,
  ): ListResourcesPage | Promise<ListResourcesPage> {
    return listResources(this.store, cursor, pageSize, context);
  }

  listTemplates(
    cursor: string | undefined,
    pageSize: number,
    revision: Revision,
  ): { resourceTemplates: ResourceTemplate[]; nextCursor?: string } {
    const page = this.store.templates.page(cursor, pageSize);
    const features = featuresOf(revision);
    const list = page.entries.map((entry) => adaptListed(entry.definition.listing, 'template', features));
    return page.nextCursor === undefined
      ? { resourceTemplates: list }
      : { resourceTemplates: list, nextCursor: page.nextCursor };
  }

  read(uri: string, context: ServerContext): HandlerOutput<ReadResourceResult> {
    return readResource(this.store, uri, context);
  }

  exists(uri: string): boolean {
    return this.store.resources.get(uri) !== undefined || matchTemplate(this.store.templates, uri) !== undefined;
  }

  scopes(uri: string): readonly string[] {
    const { resources, templates } = this.store;
    return (
      resources.get(uri)?.definition.definition.scopes ?? matchTemplate(templates, uri)?.entry.definition.scopes ?? []
    );
  }

  template(uriTemplate: string): ResourceTemplateDefinition | undefined {
    return this.store.templates.get(uriTemplate)?.definition.definition;
  }

  watch(uri: string): Observable<unknown> {
    const { resources, templates } = this.store;
    this.watchers ??= createFanOut<string, unknown>({
      open: (watched) => {
        const found = resources.get(watched)?.definition.definition;
        if (found) return found.watch?.(watched) ?? NEVER;
        const matched = matchTemplate(templates, watched);
        return matched?.entry.definition.watch?.(watched, matched.variables) ?? NEVER;
      },
    });
    return this.watchers.watch(uri);
  }
}

/** Creates empty resource registries. */
export function createResourceRegistry(options: ResourceRegistryOptions): ResourceRegistry {
  return new Resources(options);
}
