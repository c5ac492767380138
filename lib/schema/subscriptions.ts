/**
 * Subscriptions (2026-07-28 on; spec: Basic → Patterns → Subscriptions): `subscriptions/listen`
 * opens one long-lived stream of the change notifications a client opts in to, acknowledged by
 * `notifications/subscriptions/acknowledged`; every notification on it names the subscription.
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import { perRevision, V2026_07_28 } from './build';
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

const modern = () => subscriptionSchemas(V2026_07_28);

/** Which change notifications a subscription carries: list changes by kind, updates by resource URI. */
export const SubscriptionFilterSchema = z.lazy(() => modern().SubscriptionFilter);
export type SubscriptionFilter = z.infer<typeof SubscriptionFilterSchema>;

/** Params of `subscriptions/listen`: `_meta` and the notifications wanted. */
export const SubscriptionsListenRequestParamsSchema = z.lazy(() => modern().SubscriptionsListenRequestParams);
/** The params of `subscriptions/listen`. */
export type SubscriptionsListenRequestParams = z.infer<typeof SubscriptionsListenRequestParamsSchema>;
/** `subscriptions/listen`: open a stream of change notifications; it lasts until either side ends it. */
export const SubscriptionsListenRequestSchema = z.lazy(() => modern().SubscriptionsListenRequest);
export type SubscriptionsListenRequest = z.infer<typeof SubscriptionsListenRequestSchema>;

/** `_meta` of the result that ends a subscription: its id (the listen request's id) and the server's identity. */
export const SubscriptionsListenResultMetaObjectSchema = z.lazy(() => modern().SubscriptionsListenResultMetaObject);
export type SubscriptionsListenResultMetaObject = z.infer<typeof SubscriptionsListenResultMetaObjectSchema>;
/** The result of `subscriptions/listen`, sent when the server ends the subscription gracefully. */
export const SubscriptionsListenResultSchema = z.lazy(() => modern().SubscriptionsListenResult);
/** The result of `subscriptions/listen`. */
export type SubscriptionsListenResult = z.infer<typeof SubscriptionsListenResultSchema>;

/** Params of `notifications/subscriptions/acknowledged`: the notifications the server agreed to send. */
export const SubscriptionsAcknowledgedNotificationParamsSchema = z.lazy(
  () => modern().SubscriptionsAcknowledgedNotificationParams,
);
/** The params of `notifications/subscriptions/acknowledged`. */
export type SubscriptionsAcknowledgedNotificationParams = z.infer<
  typeof SubscriptionsAcknowledgedNotificationParamsSchema
>;
/** `notifications/subscriptions/acknowledged`: the first message of a subscription. */
export const SubscriptionsAcknowledgedNotificationSchema = z.lazy(() => modern().SubscriptionsAcknowledgedNotification);
export type SubscriptionsAcknowledgedNotification = z.infer<typeof SubscriptionsAcknowledgedNotificationSchema>;
