/**
 * Lifecycle of the handshake revisions (through 2025-11-25): the initialize handshake and ping.
 * Implementations and capabilities live in capabilities.ts and are re-exported here.
 */
import { z } from 'zod';
import { perRevision } from './build';
import { capabilitySchemas } from './capabilities';
import { envelopeSchemas, notificationShape, requestShape } from './envelope';
import { LATEST_LEGACY_REVISION } from './revisions';

export { ClientCapabilitiesSchema, ImplementationSchema, ServerCapabilitiesSchema } from './capabilities';
export type { ClientCapabilities, Implementation, ServerCapabilities } from './capabilities';

/** Builds the lifecycle schemas of one revision (the handshake exists through 2025-11-25). */
export const lifecycleSchemas = perRevision((revision) => {
  const { Implementation, ClientCapabilities, ServerCapabilities } = capabilitySchemas(revision);
  const { RequestParams, NotificationParams, Result } = envelopeSchemas(revision);
  const InitializeRequestParams = RequestParams.extend({
    protocolVersion: z.string(),
    capabilities: ClientCapabilities,
    clientInfo: Implementation,
  });

  return {
    Implementation,
    ClientCapabilities,
    ServerCapabilities,
    InitializeRequestParams,
    InitializeRequest: z.looseObject(requestShape(revision, 'initialize', InitializeRequestParams)),
    InitializeResult: Result.extend({
      protocolVersion: z.string(),
      capabilities: ServerCapabilities,
      serverInfo: Implementation,
      instructions: z.string().optional(),
    }),
    InitializedNotification: z.looseObject(
      notificationShape(revision, 'notifications/initialized', NotificationParams.optional()),
    ),
    PingRequest: z.looseObject(requestShape(revision, 'ping', RequestParams.optional())),
  };
});

const latest = () => lifecycleSchemas(LATEST_LEGACY_REVISION);
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof lifecycleSchemas>;

/** The params of `initialize`. */
export type InitializeRequestParams = z.infer<Schemas['InitializeRequestParams']>;
/** `initialize`: the first request of every session. */
export const InitializeRequestSchema = z.lazy(() => latest().InitializeRequest);
export type InitializeRequest = z.infer<typeof InitializeRequestSchema>;
/** The result of `initialize`. */
export type InitializeResult = z.infer<Schemas['InitializeResult']>;

/** A `notifications/initialized` notification. */
export type InitializedNotification = z.infer<Schemas['InitializedNotification']>;

/** A `ping` request. */
export type PingRequest = z.infer<Schemas['PingRequest']>;
