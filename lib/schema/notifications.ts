/**
 * The notifications both sides send: progress and cancellation.
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import {
  choose,
  perRevision,
  ProgressTokenSchema,
  requiredFrom,
  since,
  V2025_03_26,
  V2025_11_25,
  V2026_07_28,
} from './build';
import { envelopeSchemas, notificationShape } from './envelope';

/** Builds the progress and cancellation schemas of one revision. */
export const notificationSchemas = perRevision((revision) => {
  const { NotificationParams } = envelopeSchemas(revision);
  const ProgressNotificationParams = NotificationParams.extend({
    progressToken: ProgressTokenSchema,
    progress: z.number(),
    total: z.number().optional(),
    message: since(revision, V2025_03_26, z.string()).optional(),
  });
  const CancelledNotificationParams = NotificationParams.extend({
    // Optional in 2025-11-25, where tasks are cancelled with tasks/cancel instead; required again
    // from 2026-07-28, which moved tasks to an extension.
    requestId: choose(
      revision,
      V2025_11_25,
      requiredFrom(revision, V2026_07_28, RequestIdSchema.optional()),
      RequestIdSchema,
    ),
    reason: z.string().optional(),
  });
  return {
    ProgressNotificationParams,
    ProgressNotification: z.looseObject(
      notificationShape(revision, 'notifications/progress', ProgressNotificationParams),
    ),
    CancelledNotificationParams,
    CancelledNotification: z.looseObject(
      notificationShape(revision, 'notifications/cancelled', CancelledNotificationParams),
    ),
  };
});

/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof notificationSchemas>;

/** The params of `notifications/progress`. */
export type ProgressNotificationParams = z.infer<Schemas['ProgressNotificationParams']>;
/** `notifications/progress`: progress on a request that asked for it with a progress token. */
export type ProgressNotification = z.infer<Schemas['ProgressNotification']>;

/** The params of `notifications/cancelled`. */
export type CancelledNotificationParams = z.infer<Schemas['CancelledNotificationParams']>;
/** `notifications/cancelled`: the sender no longer wants the answer to a request. */
export type CancelledNotification = z.infer<Schemas['CancelledNotification']>;
