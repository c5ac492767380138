/**
 * Subscriptions (2026-07-28 on; spec: Basic → Patterns → Subscriptions): `subscriptions/listen`
 * opens one long-lived stream of the change notifications a client opts in to, acknowledged by
 * `notifications/subscriptions/acknowledged`; every notification on it names the subscription.
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import { perRevision } from './build';
import { capabilitySchemas } from './capabilities';
import { envelopeSchemas, notificationShape, requestShape } from './envelope';
import { META } from './request-meta';

/** Builds the subscription schemas of one revision (only 2026-07-28 and later expose them). */
export const subscriptionSchemas = perRevision((revision) => {
  const { RequestParams, NotificationParams, Result } = envelopeSchemas(revision);
  const { Implementation } = capabilitySchemas(revision);
  const SubscriptionFilter = z.looseObject({
    toolsListChanged: z.boolean().optional(),
    promptsListChanged: z.boolean().optional(),
    resourcesListChanged: z.boolean().optional(),
    resourceSubscriptions: z.array(z.string()).optional(),
  });
  const SubscriptionsListenRequestParams = RequestParams.extend({ notifications: SubscriptionFilter });
  const SubscriptionsListenResultMetaObject = z.looseObject({
    [META.serverInfo]: Implementation.optional(),
    [META.subscriptionId]: RequestIdSchema,
  });
  const SubscriptionsAcknowledgedNotificationParams = NotificationParams.extend({ notifications: SubscriptionFilter });
  return {
    SubscriptionFilter,
    SubscriptionsListenRequestParams,
    SubscriptionsListenRequest: z.looseObject(
      requestShape(revision, 'subscriptions/listen', SubscriptionsListenRequestParams),
    ),
    SubscriptionsListenResultMetaObject,
    SubscriptionsListenResult: Result.extend({ _meta: SubscriptionsListenResultMetaObject }),
    SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsAcknowledgedNotification: z.looseObject(
      notificationShape(
        revision,
        'notifications/subscriptions/acknowledged',
        SubscriptionsAcknowledgedNotificationParams,
      ),
    ),
  };
});

/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof subscriptionSchemas>;

/** Which change notifications a subscription carries: list changes by kind, updates by resource URI. */
export type SubscriptionFilter = z.infer<Schemas['SubscriptionFilter']>;

/** The params of `subscriptions/listen`. */
export type SubscriptionsListenRequestParams = z.infer<Schemas['SubscriptionsListenRequestParams']>;
/** `subscriptions/listen`: open a stream of change notifications; it lasts until either side ends it. */
export type SubscriptionsListenRequest = z.infer<Schemas['SubscriptionsListenRequest']>;

/** `_meta` of the result that ends a subscription: its id (the listen request's id) and the server's identity. */
export type SubscriptionsListenResultMetaObject = z.infer<Schemas['SubscriptionsListenResultMetaObject']>;
/** The result of `subscriptions/listen`. */
export type SubscriptionsListenResult = z.infer<Schemas['SubscriptionsListenResult']>;

/** The params of `notifications/subscriptions/acknowledged`. */
export type SubscriptionsAcknowledgedNotificationParams = z.infer<
  Schemas['SubscriptionsAcknowledgedNotificationParams']
>;
/** `notifications/subscriptions/acknowledged`: the first message of a subscription. */
export type SubscriptionsAcknowledgedNotification = z.infer<Schemas['SubscriptionsAcknowledgedNotification']>;
