/**
 * The events extension as rxmcp/server exports it: its modules (the catalog, feeds, push streams,
 * webhook deliveries: a dozen of them) load when a program first makes the extension, not with
 * every server.
 */
import type * as EventsExtensionModule from './events-extension';
import type { EventDefinition, EventsExtension, EventsOptions } from './events-extension';

export type { EventsExtension, EventsOptions };

/**
 * The events extension for `createServer({ extensions: [...] })`.
 * @example
 * const server = createServer({
 *   name: 'inbox', version: '1.0.0',
 *   extensions: [events([{ name: 'email.received', source: () => mail$.pipe(map((mail) => ({ data: mail }))) }])],
 * });
 */
export function events(definitions: readonly EventDefinition[], options?: EventsOptions): EventsExtension {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./events-extension') as typeof EventsExtensionModule).events(definitions, options);
}
