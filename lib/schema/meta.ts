/**
 * `_meta` objects (2026-07-28 names them): what a request says of its client and revision, what a
 * result says of its server, and what ties a notification to its subscription.
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import { baseSchemas } from './base';
import { MetaSchema, perRevision, ProgressTokenSchema } from './build';
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

/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof metaSchemas>;

/** `_meta` of a 2026-07-28 request: the revision and client capabilities (required), client info, log level, progress token. */
export type RequestMetaObject = z.infer<Schemas['RequestMetaObject']>;

/** `_meta` of a 2026-07-28 result: the server's identity. */
export type ResultMetaObject = z.infer<Schemas['ResultMetaObject']>;

/** `_meta` of a 2026-07-28 notification: the subscription it was sent on, if any. */
export type NotificationMetaObject = z.infer<Schemas['NotificationMetaObject']>;

/** What kind of result a 2026-07-28 result is: `complete` or `input_required`. */
export type ResultType = z.infer<Schemas['ResultType']>;
