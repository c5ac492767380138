/**
 * Discovery for the authorization client: the protected resource metadata of an MCP server
 * (RFC 9728) and the metadata of its authorization server (RFC 8414 and OpenID Connect Discovery),
 * in the order the MCP specification gives, and the 2025-03-26 fallbacks for servers that publish
 * neither.
 */
import { OAuthError } from './errors';

/** The fields of protected resource metadata the client uses (RFC 9728 §2). */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers?: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly [field: string]: unknown;
}

/** The fields of authorization server metadata the client uses (RFC 8414 §2). */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly authorization_endpoint?: string;
  readonly token_endpoint?: string;
  readonly registration_endpoint?: string;
  readonly scopes_supported?: readonly string[];
  readonly response_types_supported?: readonly string[];
  readonly grant_types_supported?: readonly string[];
  readonly code_challenge_methods_supported?: readonly string[];
  readonly token_endpoint_auth_methods_supported?: readonly string[];
  readonly client_id_metadata_document_supported?: boolean;
  readonly authorization_response_iss_parameter_supported?: boolean;
  readonly dpop_signing_alg_values_supported?: readonly string[];
  readonly [field: string]: unknown;
}

/** What discovery found: where to authorize and for which resource. */
export interface Discovered {
  /** The protected resource metadata, when the server publishes it (2025-06-18 on). */
  readonly resourceMetadata?: ProtectedResourceMetadata;
  /** The resource indicator to send (RFC 8707): the metadata's `resource`, else the server URL. */
  readonly resource: string;
  /** The authorization server's issuer URL. */
  readonly issuer: string;
  readonly serverMetadata: AuthorizationServerMetadata;
  /** The metadata URL the server's challenge named, if it named one. */
  readonly resourceMetadataUrl?: string;
}

type Fetch = typeof fetch;

const NO_FRAGMENT = (url: URL): URL => {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy;
};

/** Where to look for protected resource metadata: the URL the server named, else path-aware then root. */
export function resourceMetadataUrls(serverUrl: URL, fromChallenge?: string): URL[] {
  if (fromChallenge !== undefined) return [new URL(fromChallenge, serverUrl)];
  const path = serverUrl.pathname === '/' ? '' : serverUrl.pathname.replace(/\/$/, '');
  const urls = [new URL(`/.well-known/oauth-protected-resource${path}`, serverUrl.origin)];
  if (path !== '') urls.push(new URL('/.well-known/oauth-protected-resource', serverUrl.origin));
  return urls;
}

/**
 * Where to look for an authorization server's metadata (MCP 2025-11-25, Authorization Server
 * Metadata Discovery): for an issuer with a path, the OAuth and OpenID well-known URLs with the path
 * inserted, then the OpenID one with it appended; never the root documents, which describe another
 * issuer.
 */
export function serverMetadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  const at = (p: string) => new URL(p, issuer.origin);
  if (path === '') return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/** GETs a JSON document; undefined for a 4xx (not published there); throws otherwise. */
async function getJson(
  doFetch: Fetch,
  url: URL,
  protocolVersion?: string,
): Promise<Record<string, unknown> | undefined> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (protocolVersion !== undefined) headers['mcp-protocol-version'] = protocolVersion;
  let response: Response;
  try {
    response = await doFetch(url, { headers });
  } catch (error) {
    throw new OAuthError(`could not fetch ${url.href}: ${(error as Error).message}`, undefined, { cause: error });
  }
  if (response.status >= 400 && response.status < 500) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.ok) throw new OAuthError(`${url.href} answered HTTP ${response.status}`);
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError(`${url.href} did not hold a JSON object`);
  }
  return body as Record<string, unknown>;
}

/**
 * Whether protected resource metadata may speak for `serverUrl` (RFC 9728 §3.3): its `resource` has
 * the server's origin and a path that is the server's path or a parent of it.
 */
export function resourceCovers(resource: string, serverUrl: URL): boolean {
  let claimed: URL;
  try {
    claimed = new URL(resource);
  } catch {
    return false;
  }
  if (claimed.origin !== serverUrl.origin) return false;
  const base = claimed.pathname.replace(/\/$/, '');
  const path = serverUrl.pathname.replace(/\/$/, '');
  return base === '' || path === base || path.startsWith(`${base}/`);
}

/** Fetches the server's protected resource metadata; undefined when it publishes none. */
export async function fetchResourceMetadata(
  doFetch: Fetch,
  serverUrl: URL,
  fromChallenge?: string,
  protocolVersion?: string,
): Promise<ProtectedResourceMetadata | undefined> {
  for (const url of resourceMetadataUrls(serverUrl, fromChallenge)) {
    const document = await getJson(doFetch, url, protocolVersion);
    if (document === undefined) continue;
    if (typeof document.resource !== 'string') throw new OAuthError(`${url.href} names no resource`);
    if (!resourceCovers(document.resource, serverUrl)) {
      throw new OAuthError(
        `the protected resource metadata at ${url.href} is for ${document.resource}, not for ${serverUrl.href}: refusing to authorize`,
      );
    }
    return document as unknown as ProtectedResourceMetadata;
  }
  return undefined;
}

/**
 * Fetches an authorization server's metadata. `strictIssuer` (the default) requires its `issuer`
 * to be the URL it was derived from (RFC 8414 §3.3), which defeats a server that points clients at
 * another issuer's endpoints.
 */
export async function fetchServerMetadata(
  doFetch: Fetch,
  issuer: string,
  strictIssuer = true,
): Promise<AuthorizationServerMetadata | undefined> {
  const issuerUrl = new URL(issuer);
  for (const url of serverMetadataUrls(issuerUrl)) {
    const document = await getJson(doFetch, url);
    if (document === undefined) continue;
    if (typeof document.issuer !== 'string') throw new OAuthError(`${url.href} names no issuer`);
    if (strictIssuer && !sameIssuer(document.issuer, issuer)) {
      throw new OAuthError(`the metadata at ${url.href} is for issuer ${document.issuer}, not ${issuer}`);
    }
    return document as unknown as AuthorizationServerMetadata;
  }
  return undefined;
}

/** Issuers compare as strings, a trailing slash aside. */
export const sameIssuer = (a: string, b: string): boolean => a.replace(/\/$/, '') === b.replace(/\/$/, '');

/**
 * Discovers where and for what to authorize, from what a 401 or 403 said. With protected resource
 * metadata, its first authorization server is used; without (a 2025-03-26 server), the server's
 * origin is the authorization server, its metadata read without the issuer check that revision did
 * not ask for, and absent metadata means the default `/authorize`, `/token` and `/register`.
 */
export async function discover(
  doFetch: Fetch,
  serverUrl: URL,
  fromChallenge?: string,
  protocolVersion?: string,
): Promise<Discovered> {
  const resourceMetadata = await fetchResourceMetadata(doFetch, serverUrl, fromChallenge, protocolVersion);
  if (resourceMetadata !== undefined) {
    const issuer = resourceMetadata.authorization_servers?.[0];
    if (typeof issuer !== 'string')
      throw new OAuthError('the protected resource metadata names no authorization server');
    const serverMetadata = await fetchServerMetadata(doFetch, issuer);
    if (serverMetadata === undefined) throw new OAuthError(`no metadata found for the authorization server ${issuer}`);
    return {
      resourceMetadata,
      resource: resourceMetadata.resource,
      issuer,
      serverMetadata,
      ...(fromChallenge !== undefined ? { resourceMetadataUrl: fromChallenge } : {}),
    };
  }
  const origin = serverUrl.origin;
  const legacy = await fetchServerMetadata(doFetch, origin, false);
  const resource = NO_FRAGMENT(serverUrl).href;
  if (legacy !== undefined) return { resource, issuer: legacy.issuer, serverMetadata: legacy };
  return {
    resource,
    issuer: origin,
    serverMetadata: {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
    },
  };
}
