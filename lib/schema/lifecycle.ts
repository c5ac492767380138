/**
 * Lifecycle: implementations, capabilities, the initialize handshake and ping.
 */
import { z } from 'zod';
import { baseSchemas } from './base';
import { choose, OpenObjectSchema, perRevision, since, V2025_03_26, V2025_06_18, V2025_11_25 } from './build';
import { envelopeSchemas, notificationShape, requestShape } from './envelope';
import { LATEST_REVISION } from './revisions';

/** Builds the lifecycle schemas of one revision. */
export const lifecycleSchemas = perRevision((revision) => {
  const { Icon } = baseSchemas(revision);
  const { RequestParams, NotificationParams, Result } = envelopeSchemas(revision);
  const open = OpenObjectSchema.optional();
  const listChanged = z.looseObject({ listChanged: z.boolean().optional() }).optional();

  const Implementation = z.looseObject({
    name: z.string(),
    title: since(revision, V2025_06_18, z.string()).optional(),
    version: z.string(),
    description: since(revision, V2025_11_25, z.string()).optional(),
    icons: since(revision, V2025_11_25, z.array(Icon)).optional(),
    websiteUrl: since(revision, V2025_11_25, z.string()).optional(),
  });
  // Peers send `{}` for "supported, no options"; every level stays open to unknown keys.
  const ClientCapabilities = z.looseObject({
    experimental: z.record(z.string(), OpenObjectSchema).optional(),
    roots: listChanged,
    sampling: choose(revision, V2025_11_25, z.looseObject({ context: open, tools: open }), OpenObjectSchema).optional(),
    elicitation: since(
      revision,
      V2025_06_18,
      choose(revision, V2025_11_25, z.looseObject({ form: open, url: open }), OpenObjectSchema),
    ).optional(),
    tasks: since(
      revision,
      V2025_11_25,
      z.looseObject({
        list: open,
        cancel: open,
        requests: z
          .looseObject({
            sampling: z.looseObject({ createMessage: open }).optional(),
            elicitation: z.looseObject({ create: open }).optional(),
          })
          .optional(),
      }),
    ).optional(),
  });
  const ServerCapabilities = z.looseObject({
    experimental: z.record(z.string(), OpenObjectSchema).optional(),
    logging: open,
    completions: since(revision, V2025_03_26, OpenObjectSchema).optional(),
    prompts: listChanged,
    resources: z.looseObject({ subscribe: z.boolean().optional(), listChanged: z.boolean().optional() }).optional(),
    tools: listChanged,
    tasks: since(
      revision,
      V2025_11_25,
      z.looseObject({
        list: open,
        cancel: open,
        requests: z.looseObject({ tools: z.looseObject({ call: open }).optional() }).optional(),
      }),
    ).optional(),
  });
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

const latest = lifecycleSchemas(LATEST_REVISION);

/** The name and version (and, from 2025-06-18, title; from 2025-11-25, icons) of a client or server. */
export const ImplementationSchema = latest.Implementation;
export type Implementation = z.infer<typeof ImplementationSchema>;

/** What a client supports: roots, sampling, elicitation, tasks, experimental features. */
export const ClientCapabilitiesSchema = latest.ClientCapabilities;
export type ClientCapabilities = z.infer<typeof ClientCapabilitiesSchema>;

/** What a server supports: tools, resources, prompts, logging, completions, tasks. */
export const ServerCapabilitiesSchema = latest.ServerCapabilities;
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;

/** Params of `initialize`: the client's revision, capabilities and identity. */
export const InitializeRequestParamsSchema = latest.InitializeRequestParams;
export type InitializeRequestParams = z.infer<typeof InitializeRequestParamsSchema>;
/** `initialize`: the first request of every session. */
export const InitializeRequestSchema = latest.InitializeRequest;
export type InitializeRequest = z.infer<typeof InitializeRequestSchema>;
/** The result of `initialize`: the negotiated revision, the server's capabilities and identity. */
export const InitializeResultSchema = latest.InitializeResult;
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

/** `notifications/initialized`: the client is ready for normal operation. */
export const InitializedNotificationSchema = latest.InitializedNotification;
export type InitializedNotification = z.infer<typeof InitializedNotificationSchema>;

/** `ping`: either side checks that the other is alive; the answer is an empty result. */
export const PingRequestSchema = latest.PingRequest;
export type PingRequest = z.infer<typeof PingRequestSchema>;
