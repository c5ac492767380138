/**
 * Prompts: listing, getting and the list-changed notification.
 */
import { z } from 'zod';
import { baseSchemas } from './base';
import { MetaSchema, perRevision, since, V2025_06_18, V2025_11_25 } from './build';
import { contentSchemas } from './content';
import { cacheHintShape, envelopeSchemas, listRequestParams, notificationShape, requestShape } from './envelope';
import { inputResponseParamsShape } from './input-requests';

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

/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof promptSchemas>;

/** An argument a prompt accepts. */
export type PromptArgument = z.infer<Schemas['PromptArgument']>;

/** A prompt (template) the server offers. */
export type Prompt = z.infer<Schemas['Prompt']>;

/** One message of a prompt: its `role` and its content. */
export type PromptMessage = z.infer<Schemas['PromptMessage']>;

/** A `prompts/list` request. */
export type ListPromptsRequest = z.infer<Schemas['ListPromptsRequest']>;
/** The result of `prompts/list`. */
export type ListPromptsResult = z.infer<Schemas['ListPromptsResult']>;

/** The params of `prompts/get`. */
export type GetPromptRequestParams = z.infer<Schemas['GetPromptRequestParams']>;
/** `prompts/get`: render a prompt. */
export type GetPromptRequest = z.infer<Schemas['GetPromptRequest']>;
/** The result of `prompts/get`. */
export type GetPromptResult = z.infer<Schemas['GetPromptResult']>;

/** A `notifications/prompts/list_changed` notification. */
export type PromptListChangedNotification = z.infer<Schemas['PromptListChangedNotification']>;
