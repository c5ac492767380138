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
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof loggingSchemas>;

/** The params of `logging/setLevel`. */
export type SetLevelRequestParams = z.infer<Schemas['SetLevelRequestParams']>;
/** `logging/setLevel`: the least severe level the client wants to receive. */
export type SetLevelRequest = z.infer<Schemas['SetLevelRequest']>;

/** Params of `notifications/message`: level, optional logger name, and any JSON data. */
export type LoggingMessageNotificationParams = z.infer<Schemas['LoggingMessageNotificationParams']>;
/** `notifications/message`: one log message from the server. */
export const LoggingMessageNotificationSchema = z.lazy(() => latest().LoggingMessageNotification);
export type LoggingMessageNotification = z.infer<typeof LoggingMessageNotificationSchema>;
