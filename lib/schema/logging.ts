/**
 * Logging: the level a client asks for and the log messages a server sends.
 */
import { z } from 'zod';
import { baseSchemas } from './base';
import { perRevision } from './build';
import { envelopeSchemas, notificationShape, requestShape } from './envelope';
import { LATEST_LEGACY_REVISION } from './revisions';

export { LOGGING_LEVELS, LoggingLevelSchema } from './base';
export type { LoggingLevel } from './base';

/** Builds the logging schemas of one revision. */
export const loggingSchemas = perRevision((revision) => {
  const { RequestParams, NotificationParams } = envelopeSchemas(revision);
  const { LoggingLevel } = baseSchemas(revision);
  const SetLevelRequestParams = RequestParams.extend({ level: LoggingLevel });
  const LoggingMessageNotificationParams = NotificationParams.extend({
    level: LoggingLevel,
    logger: z.string().optional(),
    data: z.unknown(),
  });
  return {
    LoggingLevel,
    SetLevelRequestParams,
    SetLevelRequest: z.looseObject(requestShape(revision, 'logging/setLevel', SetLevelRequestParams)),
    LoggingMessageNotificationParams,
    LoggingMessageNotification: z.looseObject(
      notificationShape(revision, 'notifications/message', LoggingMessageNotificationParams),
    ),
  };
});

const latest = () => loggingSchemas(LATEST_LEGACY_REVISION);
/** The schemas of the latest handshake revision, whose inferred types this module exports. */
type Latest = ReturnType<typeof loggingSchemas>;

/** The params of `logging/setLevel`. */
export type SetLevelRequestParams = z.infer<Latest['SetLevelRequestParams']>;
/** `logging/setLevel`: the least severe level the client wants to receive. */
export type SetLevelRequest = z.infer<Latest['SetLevelRequest']>;

/** Params of `notifications/message`: level, optional logger name, and any JSON data. */
export type LoggingMessageNotificationParams = z.infer<Latest['LoggingMessageNotificationParams']>;
/** `notifications/message`: one log message from the server. */
export const LoggingMessageNotificationSchema = z.lazy(() => latest().LoggingMessageNotification);
export type LoggingMessageNotification = z.infer<typeof LoggingMessageNotificationSchema>;
