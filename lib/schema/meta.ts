/**
 * `_meta` objects (2026-07-28 names them): what a request says of its client and revision, what a
 * result says of its server, and what ties a notification to its subscription.
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import { baseSchemas } from './base';
import { MetaSchema, perRevision, ProgressTokenSchema, V2026_07_28 } from './build';
import { capabilitySchemas } from './capabilities';
import { META } from './request-meta';

/** Builds the `_meta` schemas of one revision (only 2026-07-28 and later expose them). */
export const metaSchemas = perRevision((revision) => {
  const { LoggingLevel } = baseSchemas(revision);
  const { Implementation, ClientCapabilities } = capabilitySchemas(revision);
  return {
    MetaObject: MetaSchema,
    RequestMetaObject: z.looseObject({
      progressToken: ProgressTokenSchema.optional(),
      [META.protocolVersion]: z.string(),
      [META.clientCapabilities]: ClientCapabilities,
      [META.clientInfo]: Implementation.optional(),
      [META.logLevel]: LoggingLevel.optional(),
    }),
    ResultMetaObject: z.looseObject({ [META.serverInfo]: Implementation.optional() }),
    NotificationMetaObject: z.looseObject({ [META.subscriptionId]: RequestIdSchema.optional() }),
    /** `complete` or `input_required`; the schema leaves it open to values later revisions add. */
    ResultType: z.string(),
  };
});

const modern = () => metaSchemas(V2026_07_28);

/** `_meta` of a 2026-07-28 request: the revision and client capabilities (required), client info, log level, progress token. */
export const RequestMetaObjectSchema = z.lazy(() => modern().RequestMetaObject);
export type RequestMetaObject = z.infer<typeof RequestMetaObjectSchema>;

/** `_meta` of a 2026-07-28 result: the server's identity. */
export const ResultMetaObjectSchema = z.lazy(() => modern().ResultMetaObject);
export type ResultMetaObject = z.infer<typeof ResultMetaObjectSchema>;

/** `_meta` of a 2026-07-28 notification: the subscription it was sent on, if any. */
export const NotificationMetaObjectSchema = z.lazy(() => modern().NotificationMetaObject);
export type NotificationMetaObject = z.infer<typeof NotificationMetaObjectSchema>;

/** What kind of result a 2026-07-28 result is: `complete` or `input_required`. */
export const ResultTypeSchema = z.lazy(() => modern().ResultType);
export type ResultType = z.infer<typeof ResultTypeSchema>;
