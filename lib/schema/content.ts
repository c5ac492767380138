/**
 * Content blocks: what tool results, prompt messages and sampling messages are made of.
 */
import { z } from 'zod';
import { baseSchemas } from './base';
import {
  anyOfTagged,
  choose,
  member,
  MetaSchema,
  perRevision,
  since,
  V2025_03_26,
  V2025_06_18,
  V2025_11_25,
  V2026_07_28,
} from './build';
import { resourceTypeSchemas } from './resource-types';
import { LATEST_LEGACY_REVISION, type Revision } from './revisions';

/** Builds the content block schemas of one revision. */
export const contentSchemas = perRevision((revision) => {
  const { Annotations } = baseSchemas(revision);
  const { Resource, TextResourceContents, BlobResourceContents } = resourceTypeSchemas(revision);
  const meta = since(revision, V2025_06_18, MetaSchema).optional();

  const TextContent = z.looseObject({
    type: z.literal('text'),
    text: z.string(),
    annotations: Annotations.optional(),
    _meta: meta,
  });
  const ImageContent = z.looseObject({
    type: z.literal('image'),
    data: z.string(),
    mimeType: z.string(),
    annotations: Annotations.optional(),
    _meta: meta,
  });
  const AudioContent = z.looseObject({
    type: z.literal('audio'),
    data: z.string(),
    mimeType: z.string(),
    annotations: Annotations.optional(),
    _meta: meta,
  });
  const EmbeddedResource = z.looseObject({
    type: z.literal('resource'),
    resource: z.union([TextResourceContents, BlobResourceContents]),
    annotations: Annotations.optional(),
    _meta: meta,
  });
  const ResourceLink = Resource.extend({ type: z.literal('resource_link') });
  const ContentBlock = anyOfTagged(
    'type',
    TextContent,
    ImageContent,
    member(revision, V2025_03_26, AudioContent),
    member(revision, V2025_06_18, ResourceLink),
    EmbeddedResource,
  );
  const ToolUseContent = z.looseObject({
    type: z.literal('tool_use'),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    _meta: MetaSchema.optional(),
  });
  const ToolResultContent = z.looseObject({
    type: z.literal('tool_result'),
    toolUseId: z.string(),
    content: z.array(ContentBlock),
    structuredContent: structuredContent(revision),
    isError: z.boolean().optional(),
    _meta: MetaSchema.optional(),
  });
  const SamplingMessageContentBlock = anyOfTagged(
    'type',
    TextContent,
    ImageContent,
    member(revision, V2025_03_26, AudioContent),
    member(revision, V2025_11_25, ToolUseContent),
    member(revision, V2025_11_25, ToolResultContent),
  );

  return {
    TextContent,
    ImageContent,
    AudioContent,
    EmbeddedResource,
    ResourceLink,
    ContentBlock,
    ToolUseContent,
    ToolResultContent,
    SamplingMessageContentBlock,
  };
});

/** `structuredContent` of a tool result: a JSON object, or from 2026-07-28 any JSON value. */
export function structuredContent(revision: Revision) {
  return choose(revision, V2026_07_28, z.unknown(), z.record(z.string(), z.unknown())).optional();
}

const latest = () => contentSchemas(LATEST_LEGACY_REVISION);
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof contentSchemas>;

/** Plain text. */
export type TextContent = z.infer<Schemas['TextContent']>;

/** A base64-encoded image with its MIME type. */
export type ImageContent = z.infer<Schemas['ImageContent']>;

/** Base64-encoded audio with its MIME type (from 2025-03-26). */
export const AudioContentSchema = z.lazy(() => latest().AudioContent);
export type AudioContent = z.infer<typeof AudioContentSchema>;

/** The contents of a resource, embedded in a message. */
export type EmbeddedResource = z.infer<Schemas['EmbeddedResource']>;

/** A link to a resource the client may read (from 2025-06-18). */
export type ResourceLink = z.infer<Schemas['ResourceLink']>;

/** Any content block of a tool result or prompt message. */
export const ContentBlockSchema = z.lazy(() => latest().ContentBlock);
/** One block of content in a tool result, a prompt message or a sampling message: text, image, audio, a resource link or an embedded resource. */
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** A model's request to call a tool, inside a sampling message (from 2025-11-25). */
export type ToolUseContent = z.infer<Schemas['ToolUseContent']>;

/** The result of a tool call, fed back to the model in a sampling message (from 2025-11-25). */
export type ToolResultContent = z.infer<Schemas['ToolResultContent']>;

/** Any content block of a sampling message. */
export type SamplingMessageContentBlock = z.infer<Schemas['SamplingMessageContentBlock']>;
