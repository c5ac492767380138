/**
 * Small types shared by every feature area: roles, annotations, icons, names, cursors.
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import { perRevision, since, V2025_06_18 } from './build';
import { LATEST_REVISION } from './revisions';

export { MetaSchema, ProgressTokenSchema, RequestMetaSchema } from './build';
export type { Meta, ProgressToken, RequestMeta } from './build';

/** Builds the shared small types of one revision. */
export const baseSchemas = perRevision((revision) => {
  const Role = z.enum(['user', 'assistant']);
  const Annotations = z.looseObject({
    audience: z.array(Role).optional(),
    priority: z.number().min(0).max(1).optional(),
    lastModified: since(revision, V2025_06_18, z.string()).optional(),
  });
  const Icon = z.looseObject({
    src: z.string(),
    mimeType: z.string().optional(),
    sizes: z.array(z.string()).optional(),
    theme: z.enum(['light', 'dark']).optional(),
  });
  return {
    RequestId: RequestIdSchema,
    Cursor: z.string(),
    Role,
    Annotations,
    /** 2024-11-05 only: the base of every annotated object. */
    Annotated: z.looseObject({ annotations: Annotations.optional() }),
    Icon,
    Icons: z.looseObject({ icons: z.array(Icon).optional() }),
    BaseMetadata: z.looseObject({ name: z.string(), title: z.string().optional() }),
  };
});

const latest = baseSchemas(LATEST_REVISION);

export { RequestIdSchema };
export type { RequestId } from '../jsonrpc/message';

/** An opaque pagination position chosen by the server. */
export const CursorSchema = latest.Cursor;
export type Cursor = z.infer<typeof CursorSchema>;

/** The sender or recipient of a message: `user` or `assistant`. */
export const RoleSchema = latest.Role;
export type Role = z.infer<typeof RoleSchema>;

/** Hints to the client about an object's audience, priority and last modification. */
export const AnnotationsSchema = latest.Annotations;
export type Annotations = z.infer<typeof AnnotationsSchema>;

/** An icon a client may show: a URI (https or data:) with optional MIME type, sizes and theme. */
export const IconSchema = latest.Icon;
export type Icon = z.infer<typeof IconSchema>;

/** The `icons` property that tools, prompts, resources and implementations share. */
export const IconsSchema = latest.Icons;
export type Icons = z.infer<typeof IconsSchema>;

/** A programmatic `name` with an optional human-readable `title`. */
export const BaseMetadataSchema = latest.BaseMetadata;
export type BaseMetadata = z.infer<typeof BaseMetadataSchema>;
