/** Which requester the Streamable HTTP client transport talks through when it is given none. */
import type { Agent as HttpAgent } from 'node:http';
import { createFetchRequester, createNodeRequester, nodeHttpModules } from './http-requester';
import type { HttpRequester } from './http-requester';
import { createUndiciRequester, loadUndici } from './undici-requester';

/**
 * The requester the client transport uses by default. A given `fetch` always wins; a given agent
 * is used through `node:http`/`node:https`. Otherwise, on Node and for an `http:` or `https:` URL
 * without credentials in it, undici's connection pool (or `node:http` with a keep-alive agent when
 * undici cannot be loaded); anywhere else `globalThis.fetch`. A `socketPath` goes through undici or
 * `node:http` alike, never through fetch.
 */
export function createDefaultRequester(
  url: URL,
  given: { fetch?: typeof fetch; agent?: HttpAgent; socketPath?: string },
): HttpRequester {
  const { socketPath } = given;
  if (given.fetch !== undefined) {
    if (socketPath !== undefined) throw new TypeError('socketPath cannot be used with fetch: leave fetch out');
    return createFetchRequester(url, given.fetch);
  }
  const node = url.protocol === 'http:' || url.protocol === 'https:' ? nodeHttpModules() : undefined;
  if (!node) {
    if (socketPath !== undefined) throw new TypeError('socketPath needs Node (node:http) and an http: URL');
    return createFetchRequester(url, globalThis.fetch);
  }
  const undici = given.agent === undefined && url.username === '' && url.password === '' ? loadUndici() : undefined;
  return undici
    ? createUndiciRequester(url, undici, socketPath)
    : createNodeRequester(url, given.agent, node, socketPath);
}

/**
 * Where a transport's requests go: an `http+unix://<encoded socket path>/<path>` URL becomes the
 * `http://localhost/<path>` it stands for and the socket; any other URL is as given, with the
 * `socketPath` option.
 */
export function socketTarget(url: URL, socketPath: string | undefined): { url: URL; socketPath: string | undefined } {
  if (url.protocol !== 'http+unix:') return { url, socketPath };
  const path = decodeURIComponent(url.host);
  if (path === '') throw new TypeError(`${url.href} names no socket: write http+unix://<percent-encoded path>/<path>`);
  return { url: new URL(`http://localhost${url.pathname}${url.search}`), socketPath: path };
}
