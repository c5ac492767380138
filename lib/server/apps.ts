/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): a tool names an interactive HTML view, a
 * `ui://` resource of mime type `text/html;profile=mcp-app`, which a host renders in a sandboxed
 * frame beside the tool's result. The tool carries `_meta.ui.resourceUri` (and optionally
 * `visibility`: who may call it, the model, the view, or both); the resource carries `_meta.ui`
 * with what its sandbox needs (`csp` origins, `permissions`, a `domain`, `prefersBorder`).
 *
 * Hosts declare the extension (usually with the mime types they render); what it adds goes only
 * to them. For a client that did not declare it the server leaves `_meta.ui` out of tool and
 * resource listings and reads, and does not list the tools only a view may call: such a client
 * sees ordinary tools whose results carry their content as text.
 */
import { map } from '../rx/rxjs';
import { isResultEvent } from '../connection/middleware';
import { isModernRevision } from '../connection/modern';
import type { ToolDefinition } from './tool-definition';
import type { RegisteredTool } from './tool-registry';
import type { RegisteredResource, ResourceDefinition } from './resource-registry';
import type { ReadResourceOutput } from './resource-definition';
import type { McpServer } from './server';
import type { ServerContext } from './server-context';
import type { ServerMiddleware } from './middleware';
import { clientExtension } from './extensions';

/** The extension identifier. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The mime type of an MCP App's HTML view. */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';

/** Origins the view's sandbox may reach, by use (they become its Content-Security-Policy). */
export interface UiResourceCsp {
  readonly connectDomains?: readonly string[];
  readonly resourceDomains?: readonly string[];
  readonly frameDomains?: readonly string[];
  readonly baseUriDomains?: readonly string[];
}

/** Browser permissions the view asks its host for (each `{}` when asked). */
export interface UiResourcePermissions {
  readonly camera?: Record<string, never>;
  readonly microphone?: Record<string, never>;
  readonly geolocation?: Record<string, never>;
  readonly clipboardWrite?: Record<string, never>;
}

/** A view's `_meta.ui`: what its sandbox needs. */
export interface UiResourceMeta {
  readonly csp?: UiResourceCsp;
  readonly permissions?: UiResourcePermissions;
  /** A dedicated origin for the view, when the host supports one. */
  readonly domain?: string;
  /** Whether the view would rather have the host draw a border around it. */
  readonly prefersBorder?: boolean;
}

/** Who may call a tool with a view: the model, the view (through its host), or both (the default). */
export type UiVisibility = 'model' | 'app';

/** A tool's `_meta.ui`. */
export interface UiToolMeta {
  /** The `ui://` resource the host renders for the tool's results. */
  readonly resourceUri: string;
  readonly visibility?: readonly UiVisibility[];
}

/** A view: a `ui://` resource whose HTML is given (`html`) or read when asked (`read`). */
export interface AppResourceDefinition extends Omit<ResourceDefinition, 'mimeType' | 'text' | 'blob' | 'read'> {
  readonly uri: `ui://${string}`;
  readonly html?: string;
  /** Reads the view's HTML on each `resources/read`, instead of a fixed `html`. */
  readonly read?: (uri: string, context: ServerContext) => string | PromiseLike<string>;
  readonly ui?: UiResourceMeta;
}

/** What `serveApps` returns: registration of views and of the tools that show them. */
export interface ServedApps {
  /** Registers a view; throws a `TypeError` unless exactly one of `html` and `read` is given. */
  resource(definition: AppResourceDefinition): RegisteredResource;
  /** Registers a tool linked to a view (`_meta.ui`); its results should still carry text for other hosts. */
  tool<Args, Structured = unknown>(definition: ToolDefinition<Args, Structured>, ui: UiToolMeta): RegisteredTool;
}

/**
 * Whether the client of this request renders MCP Apps: it declared the extension and, when it
 * listed the mime types it renders, `text/html;profile=mcp-app` among them.
 */
export function clientSupportsApps(context: Pick<ServerContext, 'clientCapabilities'>): boolean {
  const settings = clientExtension(context, UI_EXTENSION);
  if (settings === undefined) return false;
  const { mimeTypes } = settings;
  return !Array.isArray(mimeTypes) || mimeTypes.includes(UI_MIME_TYPE);
}

type Item = Record<string, unknown>;

/** `item` without `_meta.ui` (and the older flat `_meta["ui/resourceUri"]`); `_meta` goes when it empties. */
function withoutUi(item: Item): Item {
  const meta = item._meta as Item | undefined;
  if (meta === undefined || (!('ui' in meta) && !('ui/resourceUri' in meta))) return item;
  const { ui: _ui, 'ui/resourceUri': _flat, ...rest } = meta;
  const { _meta: _dropped, ...copy } = item;
  return Object.keys(rest).length > 0 ? { ...copy, _meta: rest } : copy;
}

const appOnly = (tool: Item) => {
  const visibility = ((tool._meta as Item | undefined)?.ui as Item | undefined)?.visibility;
  return Array.isArray(visibility) && visibility.length > 0 && !visibility.includes('model');
};

/** A result as a client without MCP Apps gets it. */
function plainResult(method: string, result: Item): Item {
  const strip = (key: string, keep: (item: Item) => boolean = () => true) =>
    Array.isArray(result[key]) ? { ...result, [key]: (result[key] as Item[]).filter(keep).map(withoutUi) } : result;
  switch (method) {
    case 'tools/list':
      return strip('tools', (tool) => !appOnly(tool));
    case 'resources/list':
      return strip('resources');
    case 'resources/templates/list':
      return strip('resourceTemplates');
    case 'resources/read':
      return strip('contents');
    default:
      return result;
  }
}

const VARYING = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'resources/read']);

/**
 * Leaves what MCP Apps adds out of the results a client without it gets. Those results now depend
 * on what the client declared, so under a modern revision no cache may share them between
 * clients: they are marked `cacheScope: private`.
 */
export const appsMiddleware: ServerMiddleware = (request, context, next) => {
  const apps = clientSupportsApps(context);
  const varying = VARYING.has(request.method) && isModernRevision(context.revision);
  if (apps && !varying) return next();
  return next().pipe(
    map((event) => {
      if (!isResultEvent(event)) return event;
      const result = apps ? event : plainResult(request.method, event);
      return varying ? { ...result, cacheScope: 'private' } : result;
    }),
  );
};

function readView(definition: AppResourceDefinition): ResourceDefinition['read'] {
  const { html, read, ui } = definition;
  if ((html === undefined) === (read === undefined))
    throw new TypeError(`view ${definition.uri}: give exactly one of html and read`);
  const meta = ui === undefined ? undefined : { ui };
  return async (uri, context): Promise<ReadResourceOutput> => {
    const text = html ?? (await read!(uri, context));
    return { contents: [{ uri, mimeType: UI_MIME_TYPE, text, ...(meta ? { _meta: meta } : {}) }] };
  };
}

/**
 * Serves MCP Apps on `server`: declares the extension and keeps what it adds from clients that did
 * not declare it. Returns the helpers that register views and the tools linked to them.
 * @example
 * const apps = serveApps(server);
 * apps.resource({ uri: 'ui://clock/view.html', name: 'clock-view', html: '<!doctype html>...' });
 * apps.tool({ name: 'clock', description: 'The time', handler: () => textResult(new Date().toISOString()) },
 *   { resourceUri: 'ui://clock/view.html' });
 */
export function serveApps(server: McpServer): ServedApps {
  server.extension({ id: UI_EXTENSION, middleware: appsMiddleware });
  return {
    resource(definition) {
      const { html: _html, read: _read, ui, ...listed } = definition;
      const meta = ui === undefined ? listed._meta : { ...listed._meta, ui };
      return server.resource({
        ...listed,
        mimeType: UI_MIME_TYPE,
        ...(meta !== undefined ? { _meta: meta } : {}),
        read: readView(definition),
      });
    },
    tool(definition, ui) {
      if (typeof ui.resourceUri !== 'string' || !ui.resourceUri.startsWith('ui://'))
        throw new TypeError(`tool ${definition.name}: resourceUri must be a ui:// URI`);
      const linked = { resourceUri: ui.resourceUri, ...(ui.visibility ? { visibility: [...ui.visibility] } : {}) };
      return server.tool({ ...definition, _meta: { ...definition._meta, ui: linked } });
    },
  };
}
