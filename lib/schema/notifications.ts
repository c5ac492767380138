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
import { LATEST_LEGACY_REVISION } from './revisions';

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

const latest = () => notificationSchemas(LATEST_LEGACY_REVISION);

/** Params of `notifications/progress`: the token, the progress so far, and optional total and message. */
export const ProgressNotificationParamsSchema = z.lazy(() => latest().ProgressNotificationParams);
/** The params of `notifications/progress`. */
export type ProgressNotificationParams = z.infer<typeof ProgressNotificationParamsSchema>;
/** `notifications/progress`: progress on a request that asked for it with a progress token. */
export const ProgressNotificationSchema = z.lazy(() => latest().ProgressNotification);
export type ProgressNotification = z.infer<typeof ProgressNotificationSchema>;

/** Params of `notifications/cancelled`: which request, and why. */
export const CancelledNotificationParamsSchema = z.lazy(() => latest().CancelledNotificationParams);
/** The params of `notifications/cancelled`. */
export type CancelledNotificationParams = z.infer<typeof CancelledNotificationParamsSchema>;
/** `notifications/cancelled`: the sender no longer wants the answer to a request. */
export const CancelledNotificationSchema = z.lazy(() => latest().CancelledNotification);
export type CancelledNotification = z.infer<typeof CancelledNotificationSchema>;
