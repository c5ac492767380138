/**
 * A client's events as rxmcp/client exports them: their modules (push and webhook followers, the
 * router, seen ids) load when a program first asks for a client's events, not with every client.
 */
import type { McpClient } from '../client-api';
import type * as EventsClientModule from './events-client';
import type { EventsClient } from './events-client';

export { createWebhookReceiver, type WebhookReceiverOptions } from './webhook-receiver';
export type { EventsClient, FollowEventsOptions, WebhookFollowOptions } from './events-client';

/**
 * The events of the server `client` is connected to.
 * @example
 * const events = eventsClient(client);
 * events.follow('email.received', { from: '*@example.com' }).subscribe((event) => wakeTheAgent(event.data));
 */
export function eventsClient(client: McpClient): EventsClient {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./events-client') as typeof EventsClientModule).eventsClient(client);
}
