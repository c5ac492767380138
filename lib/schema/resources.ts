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
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof resourceSchemas>;

/** Params of a request about one resource URI. */
export type ResourceRequestParams = z.infer<Schemas['ResourceRequestParams']>;

/** A `resources/list` request. */
export type ListResourcesRequest = z.infer<Schemas['ListResourcesRequest']>;
/** The result of `resources/list`. */
export type ListResourcesResult = z.infer<Schemas['ListResourcesResult']>;

/** A `resources/templates/list` request. */
export type ListResourceTemplatesRequest = z.infer<Schemas['ListResourceTemplatesRequest']>;
/** The result of `resources/templates/list`. */
export type ListResourceTemplatesResult = z.infer<Schemas['ListResourceTemplatesResult']>;

/** The params of `resources/read`. */
export type ReadResourceRequestParams = z.infer<Schemas['ReadResourceRequestParams']>;
/** `resources/read`: the contents of one resource. */
export type ReadResourceRequest = z.infer<Schemas['ReadResourceRequest']>;
/** The result of `resources/read` (with caching hints from 2026-07-28). */
export type ReadResourceResult = z.infer<Schemas['ReadResourceResult']>;

/** The params of `resources/subscribe`. */
export type SubscribeRequestParams = z.infer<Schemas['SubscribeRequestParams']>;
/** `resources/subscribe`: ask for `notifications/resources/updated` about one URI (through 2025-11-25). */
export const SubscribeRequestSchema = z.lazy(() => latest().SubscribeRequest);
export type SubscribeRequest = z.infer<typeof SubscribeRequestSchema>;

/** The params of `resources/unsubscribe`. */
export type UnsubscribeRequestParams = z.infer<Schemas['UnsubscribeRequestParams']>;
/** `resources/unsubscribe`: stop updates about one URI (through 2025-11-25). */
export type UnsubscribeRequest = z.infer<Schemas['UnsubscribeRequest']>;

/** A `notifications/resources/list_changed` notification. */
export type ResourceListChangedNotification = z.infer<Schemas['ResourceListChangedNotification']>;

/** The params of `notifications/resources/updated`. */
export type ResourceUpdatedNotificationParams = z.infer<Schemas['ResourceUpdatedNotificationParams']>;
/** `notifications/resources/updated`: a subscribed resource changed. */
export const ResourceUpdatedNotificationSchema = z.lazy(() => latest().ResourceUpdatedNotification);
export type ResourceUpdatedNotification = z.infer<typeof ResourceUpdatedNotificationSchema>;
