/** Which requester the Streamable HTTP client transport talks through when it is given none. */
import type { Agent as HttpAgent } from 'node:http';
import { createFetchRequester, createNodeRequester, nodeHttpModules } from './http-requester';
import type { HttpRequester } from './http-requester';
import { createUndiciRequester, loadUndici } from './undici-requester';

/**
 * The requester the client transport uses by default. A given `fetch` always wins; a given agent
 * is used through `node:http`/`node:https`. Otherwise, on Node and for an `http:` or `https:` URL
 * without credentials in it, undici's connection pool (or `node:http` with a keep-alive agent when
 * undici cannot be loaded); anywhere else `globalThis.fetch`.
 */
export function createDefaultRequester(url: URL, given: { fetch?: typeof fetch; agent?: HttpAgent }): HttpRequester {
  if (given.fetch !== undefined) return createFetchRequester(url, given.fetch);
  const node = url.protocol === 'http:' || url.protocol === 'https:' ? nodeHttpModules() : undefined;
  if (!node) return createFetchRequester(url, globalThis.fetch);
  const undici = given.agent === undefined && url.username === '' && url.password === '' ? loadUndici() : undefined;
  return undici ? createUndiciRequester(url, undici) : createNodeRequester(url, given.agent, node);
}
