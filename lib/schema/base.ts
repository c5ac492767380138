/**
 * Small types shared by every feature area: roles, annotations, icons, names, cursors, log levels
 * and JSON values.
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import { perRevision, since, V2025_06_18 } from './build';
import { LATEST_LEGACY_REVISION } from './revisions';

export { MetaSchema, ProgressTokenSchema, RequestMetaSchema } from './build';
export type { Meta, ProgressToken, RequestMeta } from './build';

/** The syslog severities (RFC 5424), least severe first. */
export const LOGGING_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

/** Any JSON value. The one type written by hand: zod cannot infer a recursive type. */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

// The published 2026-07-28 JSON Schema lists only strings, integers and booleans as JSONValue
// leaves; its TypeScript source (and every JSON parser) also has fractions and null, which peers
// put in capability objects: accept them (see spec/schema/differences.spec.ts).
/** Any JSON value: an object, an array, a string, a number, a boolean or null. */
export const JSONValueSchema: z.ZodType<JSONValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), JSONArraySchema, JSONObjectSchema]),
);

/** A JSON object: string keys, JSON values (capability and extension settings, sampling metadata). */
export const JSONObjectSchema = z.record(z.string(), JSONValueSchema);
export type JSONObject = z.infer<typeof JSONObjectSchema>;

/** A JSON array. */
export const JSONArraySchema = z.array(JSONValueSchema);
export type JSONArray = z.infer<typeof JSONArraySchema>;

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
    LoggingLevel: z.enum(LOGGING_LEVELS),
    JSONValue: JSONValueSchema,
    JSONObject: JSONObjectSchema,
    JSONArray: JSONArraySchema,
  };
});

const latest = () => baseSchemas(LATEST_LEGACY_REVISION);
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof baseSchemas>;

export { RequestIdSchema };
export type { RequestId } from '../jsonrpc/message';

/** An opaque pagination position chosen by the server. */
export type Cursor = z.infer<Schemas['Cursor']>;

/** The sender or recipient of a message: `user` or `assistant`. */
export type Role = z.infer<Schemas['Role']>;

/** Hints on content for the client: its `audience`, its `priority` (0 to 1), when it was last modified. */
export type Annotations = z.infer<Schemas['Annotations']>;

/** An icon a client may show for a tool, resource, prompt or implementation: its `src`, MIME type, sizes and theme. */
export type Icon = z.infer<Schemas['Icon']>;

/** The `icons` property that tools, prompts, resources and implementations share. */
export type Icons = z.infer<Schemas['Icons']>;

/** A programmatic `name` with an optional human-readable `title`. */
export type BaseMetadata = z.infer<Schemas['BaseMetadata']>;

/** A log severity, from `debug` to `emergency`. */
export const LoggingLevelSchema = z.lazy(() => latest().LoggingLevel);
/** A log severity, from `debug` to `emergency`. */
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;
