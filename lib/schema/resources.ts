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

/** Params of a request about one resource URI. */
export const ResourceRequestParamsSchema = z.lazy(() => latest().ResourceRequestParams);
export type ResourceRequestParams = z.infer<typeof ResourceRequestParamsSchema>;

/** `resources/list`: one page of the server's resources. */
export const ListResourcesRequestSchema = z.lazy(() => latest().ListResourcesRequest);
/** A `resources/list` request. */
export type ListResourcesRequest = z.infer<typeof ListResourcesRequestSchema>;
/** The result of `resources/list` (with caching hints from 2026-07-28). */
export const ListResourcesResultSchema = z.lazy(() => latest().ListResourcesResult);
/** The result of `resources/list`. */
export type ListResourcesResult = z.infer<typeof ListResourcesResultSchema>;

/** `resources/templates/list`: one page of the server's resource templates. */
export const ListResourceTemplatesRequestSchema = z.lazy(() => latest().ListResourceTemplatesRequest);
/** A `resources/templates/list` request. */
export type ListResourceTemplatesRequest = z.infer<typeof ListResourceTemplatesRequestSchema>;
/** The result of `resources/templates/list` (with caching hints from 2026-07-28). */
export const ListResourceTemplatesResultSchema = z.lazy(() => latest().ListResourceTemplatesResult);
/** The result of `resources/templates/list`. */
export type ListResourceTemplatesResult = z.infer<typeof ListResourceTemplatesResultSchema>;

/** Params of `resources/read` (and, when retried, the answers to its input requests). */
export const ReadResourceRequestParamsSchema = z.lazy(() => latest().ReadResourceRequestParams);
/** The params of `resources/read`. */
export type ReadResourceRequestParams = z.infer<typeof ReadResourceRequestParamsSchema>;
/** `resources/read`: the contents of one resource. */
export const ReadResourceRequestSchema = z.lazy(() => latest().ReadResourceRequest);
export type ReadResourceRequest = z.infer<typeof ReadResourceRequestSchema>;
/** The result of `resources/read` (with caching hints from 2026-07-28). */
export const ReadResourceResultSchema = z.lazy(() => latest().ReadResourceResult);
/** The result of `resources/read` (with caching hints from 2026-07-28). */
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;

/** Params of `resources/subscribe` (through 2025-11-25). */
export const SubscribeRequestParamsSchema = z.lazy(() => latest().SubscribeRequestParams);
/** The params of `resources/subscribe`. */
export type SubscribeRequestParams = z.infer<typeof SubscribeRequestParamsSchema>;
/** `resources/subscribe`: ask for `notifications/resources/updated` about one URI (through 2025-11-25). */
export const SubscribeRequestSchema = z.lazy(() => latest().SubscribeRequest);
export type SubscribeRequest = z.infer<typeof SubscribeRequestSchema>;

/** Params of `resources/unsubscribe` (through 2025-11-25). */
export const UnsubscribeRequestParamsSchema = z.lazy(() => latest().UnsubscribeRequestParams);
/** The params of `resources/unsubscribe`. */
export type UnsubscribeRequestParams = z.infer<typeof UnsubscribeRequestParamsSchema>;
/** `resources/unsubscribe`: stop updates about one URI (through 2025-11-25). */
export const UnsubscribeRequestSchema = z.lazy(() => latest().UnsubscribeRequest);
export type UnsubscribeRequest = z.infer<typeof UnsubscribeRequestSchema>;

/** `notifications/resources/list_changed`: the list of resources changed. */
export const ResourceListChangedNotificationSchema = z.lazy(() => latest().ResourceListChangedNotification);
/** A `notifications/resources/list_changed` notification. */
export type ResourceListChangedNotification = z.infer<typeof ResourceListChangedNotificationSchema>;

/** Params of `notifications/resources/updated`. */
export const ResourceUpdatedNotificationParamsSchema = z.lazy(() => latest().ResourceUpdatedNotificationParams);
/** The params of `notifications/resources/updated`. */
export type ResourceUpdatedNotificationParams = z.infer<typeof ResourceUpdatedNotificationParamsSchema>;
/** `notifications/resources/updated`: a subscribed resource changed. */
export const ResourceUpdatedNotificationSchema = z.lazy(() => latest().ResourceUpdatedNotification);
export type ResourceUpdatedNotification = z.infer<typeof ResourceUpdatedNotificationSchema>;
