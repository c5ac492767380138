/**
 * What a resource is: its listing (`Resource`, `ResourceTemplate`) and its contents, as resources
 * are listed and read and as content blocks embed or link them.
 */
import { z } from 'zod';
import { baseSchemas } from './base';
import { MetaSchema, perRevision, since, V2025_06_18, V2025_11_25 } from './build';
import { LATEST_LEGACY_REVISION } from './revisions';

/** Builds the resource and contents schemas of one revision. */
export const resourceTypeSchemas = perRevision((revision) => {
  const { Annotations, Icon } = baseSchemas(revision);
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
  return {
    Resource,
    ResourceTemplate,
    ResourceContents,
    TextResourceContents: ResourceContents.extend({ text: z.string() }),
    BlobResourceContents: ResourceContents.extend({ blob: z.string() }),
  };
});

const latest = () => resourceTypeSchemas(LATEST_LEGACY_REVISION);

/** A resource the server offers: a URI with a name and optional metadata. */
export const ResourceSchema = z.lazy(() => latest().Resource);
/** A resource the server offers: a URI with a name and optional metadata. */
export type Resource = z.infer<typeof ResourceSchema>;

/** A family of resources described by an RFC 6570 URI template. */
export const ResourceTemplateSchema = z.lazy(() => latest().ResourceTemplate);
/** A family of resources described by an RFC 6570 URI template. */
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;

/** What every resource contents object has: its URI and MIME type. */
export const ResourceContentsSchema = z.lazy(() => latest().ResourceContents);
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;

/** Resource contents as text. */
export const TextResourceContentsSchema = z.lazy(() => latest().TextResourceContents);
export type TextResourceContents = z.infer<typeof TextResourceContentsSchema>;

/** Resource contents as base64-encoded binary data. */
export const BlobResourceContentsSchema = z.lazy(() => latest().BlobResourceContents);
export type BlobResourceContents = z.infer<typeof BlobResourceContentsSchema>;
