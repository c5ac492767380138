/**
 * Prompts: listing, getting and the list-changed notification.
 */
import { z } from 'zod';
import { baseSchemas } from './base';
import { MetaSchema, perRevision, since, V2025_06_18, V2025_11_25 } from './build';
import { contentSchemas } from './content';
import { cacheHintShape, envelopeSchemas, listRequestParams, notificationShape, requestShape } from './envelope';
import { inputResponseParamsShape } from './input-requests';
import { LATEST_LEGACY_REVISION } from './revisions';

/** Builds the prompt schemas of one revision. */
export const promptSchemas = perRevision((revision) => {
  const { Icon, Role } = baseSchemas(revision);
  const { ContentBlock } = contentSchemas(revision);
  const { RequestParams, NotificationParams, PaginatedResult, Result } = envelopeSchemas(revision);
  const title = since(revision, V2025_06_18, z.string()).optional();

  const PromptArgument = z.looseObject({
    name: z.string(),
    title,
    description: z.string().optional(),
    required: z.boolean().optional(),
  });
  const Prompt = z.looseObject({
    name: z.string(),
    title,
    description: z.string().optional(),
    arguments: z.array(PromptArgument).optional(),
    icons: since(revision, V2025_11_25, z.array(Icon)).optional(),
    _meta: since(revision, V2025_06_18, MetaSchema).optional(),
  });
  const PromptMessage = z.looseObject({ role: Role, content: ContentBlock });
  const GetPromptRequestParams = RequestParams.extend({
    name: z.string(),
    arguments: z.record(z.string(), z.string()).optional(),
    ...inputResponseParamsShape(revision),
  });

  return {
    PromptArgument,
    Prompt,
    PromptMessage,
    ListPromptsRequest: z.looseObject(requestShape(revision, 'prompts/list', listRequestParams(revision))),
    ListPromptsResult: PaginatedResult.extend({ ...cacheHintShape(revision), prompts: z.array(Prompt) }),
    GetPromptRequestParams,
    GetPromptRequest: z.looseObject(requestShape(revision, 'prompts/get', GetPromptRequestParams)),
    GetPromptResult: Result.extend({ description: z.string().optional(), messages: z.array(PromptMessage) }),
    PromptListChangedNotification: z.looseObject(
      notificationShape(revision, 'notifications/prompts/list_changed', NotificationParams.optional()),
    ),
  };
});

const latest = () => promptSchemas(LATEST_LEGACY_REVISION);

/** An argument a prompt accepts. */
export const PromptArgumentSchema = z.lazy(() => latest().PromptArgument);
export type PromptArgument = z.infer<typeof PromptArgumentSchema>;

/** A prompt (template) the server offers. */
export const PromptSchema = z.lazy(() => latest().Prompt);
/** A prompt (template) the server offers. */
export type Prompt = z.infer<typeof PromptSchema>;

/** One message of a rendered prompt. */
export const PromptMessageSchema = z.lazy(() => latest().PromptMessage);
/** One message of a prompt: its `role` and its content. */
export type PromptMessage = z.infer<typeof PromptMessageSchema>;

/** `prompts/list`: one page of the server's prompts. */
export const ListPromptsRequestSchema = z.lazy(() => latest().ListPromptsRequest);
/** A `prompts/list` request. */
export type ListPromptsRequest = z.infer<typeof ListPromptsRequestSchema>;
/** The result of `prompts/list`. */
export const ListPromptsResultSchema = z.lazy(() => latest().ListPromptsResult);
/** The result of `prompts/list`. */
export type ListPromptsResult = z.infer<typeof ListPromptsResultSchema>;

/** Params of `prompts/get`: the prompt's name and string arguments. */
export const GetPromptRequestParamsSchema = z.lazy(() => latest().GetPromptRequestParams);
/** The params of `prompts/get`. */
export type GetPromptRequestParams = z.infer<typeof GetPromptRequestParamsSchema>;
/** `prompts/get`: render a prompt. */
export const GetPromptRequestSchema = z.lazy(() => latest().GetPromptRequest);
export type GetPromptRequest = z.infer<typeof GetPromptRequestSchema>;
/** The result of `prompts/get`. */
export const GetPromptResultSchema = z.lazy(() => latest().GetPromptResult);
/** The result of `prompts/get`. */
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;

/** `notifications/prompts/list_changed`: the list of prompts changed. */
export const PromptListChangedNotificationSchema = z.lazy(() => latest().PromptListChangedNotification);
/** A `notifications/prompts/list_changed` notification. */
export type PromptListChangedNotification = z.infer<typeof PromptListChangedNotificationSchema>;
