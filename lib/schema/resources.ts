/**
 * Resources: listing, templates, reading, subscriptions and their notifications.
 */
import { z } from 'zod';
import { baseSchemas } from './base';
import { MetaSchema, perRevision, since, V2025_06_18, V2025_11_25 } from './build';
import { envelopeSchemas, notificationShape, requestShape } from './envelope';
import { LATEST_REVISION } from './revisions';

/** Builds the resource schemas of one revision. */
export const resourceSchemas = perRevision((revision) => {
  const { Annotations, Icon } = baseSchemas(revision);
  const { RequestParams, NotificationParams, PaginatedRequestParams, PaginatedResult, Result } =
    envelopeSchemas(revision);
  const meta = since(revision, V2025_06_18, MetaSchema).optional();
  const title = since(revision, V2025_06_18, z.string()).optional();
  const icons = since(revision, V2025_11_25, z.array(Icon)).optional();

  const Resource = z.looseObject({
    uri: z.string(),
    name: z.string(),
    title,
    description: z.string().optional(),
    mimeType: z.string().optional(),
    size: z.number().int().optional(),
    annotations: Annotations.optional(),
    icons,
    _meta: meta,
  });
  const ResourceTemplate = z.looseObject({
    uriTemplate: z.string(),
    name: z.string(),
    title,
    description: z.string().optional(),
    mimeType: z.string().optional(),
    annotations: Annotations.optional(),
    icons,
    _meta: meta,
  });
  const ResourceContents = z.looseObject({ uri: z.string(), mimeType: z.string().optional(), _meta: meta });
  const TextResourceContents = ResourceContents.extend({ text: z.string() });
  const BlobResourceContents = ResourceContents.extend({ blob: z.string() });
  const ResourceRequestParams = RequestParams.extend({ uri: z.string() });
  const ResourceUpdatedNotificationParams = NotificationParams.extend({ uri: z.string() });

  return {
    Resource,
    ResourceTemplate,
    ResourceContents,
    TextResourceContents,
    BlobResourceContents,
    ResourceRequestParams,
    ListResourcesRequest: z.looseObject(requestShape(revision, 'resources/list', PaginatedRequestParams.optional())),
    ListResourcesResult: PaginatedResult.extend({ resources: z.array(Resource) }),
    ListResourceTemplatesRequest: z.looseObject(
      requestShape(revision, 'resources/templates/list', PaginatedRequestParams.optional()),
    ),
    ListResourceTemplatesResult: PaginatedResult.extend({ resourceTemplates: z.array(ResourceTemplate) }),
    ReadResourceRequestParams: ResourceRequestParams,
    ReadResourceRequest: z.looseObject(requestShape(revision, 'resources/read', ResourceRequestParams)),
    ReadResourceResult: Result.extend({ contents: z.array(z.union([TextResourceContents, BlobResourceContents])) }),
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

const latest = resourceSchemas(LATEST_REVISION);

/** A resource the server offers: a URI with a name and optional metadata. */
export const ResourceSchema = latest.Resource;
export type Resource = z.infer<typeof ResourceSchema>;

/** A family of resources described by an RFC 6570 URI template. */
export const ResourceTemplateSchema = latest.ResourceTemplate;
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;

/** What every resource contents object has: its URI and MIME type. */
export const ResourceContentsSchema = latest.ResourceContents;
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;

/** Resource contents as text. */
export const TextResourceContentsSchema = latest.TextResourceContents;
export type TextResourceContents = z.infer<typeof TextResourceContentsSchema>;

/** Resource contents as base64-encoded binary data. */
export const BlobResourceContentsSchema = latest.BlobResourceContents;
export type BlobResourceContents = z.infer<typeof BlobResourceContentsSchema>;

/** Params of a request about one resource URI. */
export const ResourceRequestParamsSchema = latest.ResourceRequestParams;
export type ResourceRequestParams = z.infer<typeof ResourceRequestParamsSchema>;

/** `resources/list`: one page of the server's resources. */
export const ListResourcesRequestSchema = latest.ListResourcesRequest;
export type ListResourcesRequest = z.infer<typeof ListResourcesRequestSchema>;
/** The result of `resources/list`. */
export const ListResourcesResultSchema = latest.ListResourcesResult;
export type ListResourcesResult = z.infer<typeof ListResourcesResultSchema>;

/** `resources/templates/list`: one page of the server's resource templates. */
export const ListResourceTemplatesRequestSchema = latest.ListResourceTemplatesRequest;
export type ListResourceTemplatesRequest = z.infer<typeof ListResourceTemplatesRequestSchema>;
/** The result of `resources/templates/list`. */
export const ListResourceTemplatesResultSchema = latest.ListResourceTemplatesResult;
export type ListResourceTemplatesResult = z.infer<typeof ListResourceTemplatesResultSchema>;

/** Params of `resources/read`. */
export const ReadResourceRequestParamsSchema = latest.ReadResourceRequestParams;
export type ReadResourceRequestParams = z.infer<typeof ReadResourceRequestParamsSchema>;
/** `resources/read`: the contents of one resource. */
export const ReadResourceRequestSchema = latest.ReadResourceRequest;
export type ReadResourceRequest = z.infer<typeof ReadResourceRequestSchema>;
/** The result of `resources/read`. */
export const ReadResourceResultSchema = latest.ReadResourceResult;
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;

/** Params of `resources/subscribe`. */
export const SubscribeRequestParamsSchema = latest.SubscribeRequestParams;
export type SubscribeRequestParams = z.infer<typeof SubscribeRequestParamsSchema>;
/** `resources/subscribe`: ask for `notifications/resources/updated` about one URI. */
export const SubscribeRequestSchema = latest.SubscribeRequest;
export type SubscribeRequest = z.infer<typeof SubscribeRequestSchema>;

/** Params of `resources/unsubscribe`. */
export const UnsubscribeRequestParamsSchema = latest.UnsubscribeRequestParams;
export type UnsubscribeRequestParams = z.infer<typeof UnsubscribeRequestParamsSchema>;
/** `resources/unsubscribe`: stop updates about one URI. */
export const UnsubscribeRequestSchema = latest.UnsubscribeRequest;
export type UnsubscribeRequest = z.infer<typeof UnsubscribeRequestSchema>;

/** `notifications/resources/list_changed`: the list of resources changed. */
export const ResourceListChangedNotificationSchema = latest.ResourceListChangedNotification;
export type ResourceListChangedNotification = z.infer<typeof ResourceListChangedNotificationSchema>;

/** Params of `notifications/resources/updated`. */
export const ResourceUpdatedNotificationParamsSchema = latest.ResourceUpdatedNotificationParams;
export type ResourceUpdatedNotificationParams = z.infer<typeof ResourceUpdatedNotificationParamsSchema>;
/** `notifications/resources/updated`: a subscribed resource changed. */
export const ResourceUpdatedNotificationSchema = latest.ResourceUpdatedNotification;
export type ResourceUpdatedNotification = z.infer<typeof ResourceUpdatedNotificationSchema>;
