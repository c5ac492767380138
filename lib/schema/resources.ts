/**
 * Resources: listing, templates, reading, subscriptions and their notifications.
 */
import { z } from 'zod';
import { perRevision } from './build';
import { cacheHintShape, envelopeSchemas, listRequestParams, notificationShape, requestShape } from './envelope';
import { inputResponseParamsShape } from './input-requests';
import { resourceTypeSchemas } from './resource-types';
import { LATEST_LEGACY_REVISION } from './revisions';

export {
  BlobResourceContentsSchema,
  ResourceContentsSchema,
  ResourceSchema,
  ResourceTemplateSchema,
  TextResourceContentsSchema,
} from './resource-types';
export type {
  BlobResourceContents,
  Resource,
  ResourceContents,
  ResourceTemplate,
  TextResourceContents,
} from './resource-types';

/** Builds the resource schemas of one revision. */
export const resourceSchemas = perRevision((revision) => {
  const types = resourceTypeSchemas(revision);
  const { Resource, ResourceTemplate, TextResourceContents, BlobResourceContents } = types;
  const { RequestParams, NotificationParams, PaginatedResult, Result } = envelopeSchemas(revision);
  const ResourceRequestParams = RequestParams.extend({ uri: z.string() });
  const ReadResourceRequestParams = ResourceRequestParams.extend(inputResponseParamsShape(revision));
  const ResourceUpdatedNotificationParams = NotificationParams.extend({ uri: z.string() });
  const cacheHints = cacheHintShape(revision);

  return {
    ...types,
    ResourceRequestParams,
    ListResourcesRequest: z.looseObject(requestShape(revision, 'resources/list', listRequestParams(revision))),
    ListResourcesResult: PaginatedResult.extend({ ...cacheHints, resources: z.array(Resource) }),
    ListResourceTemplatesRequest: z.looseObject(
      requestShape(revision, 'resources/templates/list', listRequestParams(revision)),
    ),
    ListResourceTemplatesResult: PaginatedResult.extend({
      ...cacheHints,
      resourceTemplates: z.array(ResourceTemplate),
    }),
    ReadResourceRequestParams,
    ReadResourceRequest: z.looseObject(requestShape(revision, 'resources/read', ReadResourceRequestParams)),
    ReadResourceResult: Result.extend({
      ...cacheHints,
      contents: z.array(z.union([TextResourceContents, BlobResourceContents])),
    }),
    SubscribeRequestParams: ResourceRequestParams,
    SubscribeRequest: z.looseObject(requestShape(revision, 'resources/subscribe', ResourceRequestParams)),
    UnsubscribeRequestParams: ResourceRequestParams,
    UnsubscribeRequest: z.looseObject(requestShape(revision, 'resources/unsubscribe', ResourceRequestParams)),
    ResourceListChangedNotification: z.looseObject(
      notificationShape(revision, 'notifications/resources/list_changed', NotificationParams.optional()),
    ),
    ResourceUpdatedNotificationParams,
    ResourceUpdatedNotification: z.looseObject(
      notificationShape(revision, 'notifications/resources/updated', ResourceUpdatedNotificationParams),
    ),
  };
});

const latest = () => resourceSchemas(LATEST_LEGACY_REVISION);
/** The schemas of the latest handshake revision, whose inferred types this module exports. */
type Latest = ReturnType<typeof resourceSchemas>;

/** Params of a request about one resource URI. */
export type ResourceRequestParams = z.infer<Latest['ResourceRequestParams']>;

/** A `resources/list` request. */
export type ListResourcesRequest = z.infer<Latest['ListResourcesRequest']>;
/** The result of `resources/list`. */
export type ListResourcesResult = z.infer<Latest['ListResourcesResult']>;

/** A `resources/templates/list` request. */
export type ListResourceTemplatesRequest = z.infer<Latest['ListResourceTemplatesRequest']>;
/** The result of `resources/templates/list`. */
export type ListResourceTemplatesResult = z.infer<Latest['ListResourceTemplatesResult']>;

/** The params of `resources/read`. */
export type ReadResourceRequestParams = z.infer<Latest['ReadResourceRequestParams']>;
/** `resources/read`: the contents of one resource. */
export type ReadResourceRequest = z.infer<Latest['ReadResourceRequest']>;
/** The result of `resources/read` (with caching hints from 2026-07-28). */
export type ReadResourceResult = z.infer<Latest['ReadResourceResult']>;

/** The params of `resources/subscribe`. */
export type SubscribeRequestParams = z.infer<Latest['SubscribeRequestParams']>;
/** `resources/subscribe`: ask for `notifications/resources/updated` about one URI (through 2025-11-25). */
export const SubscribeRequestSchema = z.lazy(() => latest().SubscribeRequest);
export type SubscribeRequest = z.infer<typeof SubscribeRequestSchema>;

/** The params of `resources/unsubscribe`. */
export type UnsubscribeRequestParams = z.infer<Latest['UnsubscribeRequestParams']>;
/** `resources/unsubscribe`: stop updates about one URI (through 2025-11-25). */
export type UnsubscribeRequest = z.infer<Latest['UnsubscribeRequest']>;

/** A `notifications/resources/list_changed` notification. */
export type ResourceListChangedNotification = z.infer<Latest['ResourceListChangedNotification']>;

/** The params of `notifications/resources/updated`. */
export type ResourceUpdatedNotificationParams = z.infer<Latest['ResourceUpdatedNotificationParams']>;
/** `notifications/resources/updated`: a subscribed resource changed. */
export const ResourceUpdatedNotificationSchema = z.lazy(() => latest().ResourceUpdatedNotification);
export type ResourceUpdatedNotification = z.infer<typeof ResourceUpdatedNotificationSchema>;
