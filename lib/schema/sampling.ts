/**
 * Sampling: a server asks the client's model for a completion, optionally with tools (2025-11-25);
 * from 2026-07-28 as an input request of a multi round-trip request.
 */
import { z } from 'zod';
import { baseSchemas, JSONObjectSchema } from './base';
import { anyOf, chooseAsOlder, member, MetaSchema, perRevision, since, until, V2025_11_25, V2026_07_28 } from './build';
import { contentSchemas } from './content';
import { clientResultBase, serverRequestParams, serverRequestShape } from './envelope';
import { LATEST_LEGACY_REVISION } from './revisions';
import { taskSchemas } from './tasks';
import { toolTypeSchemas } from './tool-types';

/** Builds the sampling schemas of one revision. */
export const samplingSchemas = perRevision((revision) => {
  const { Role } = baseSchemas(revision);
  const { SamplingMessageContentBlock } = contentSchemas(revision);
  const { Tool } = toolTypeSchemas(revision);
  const { TaskMetadata } = taskSchemas(revision);
  const priority = z.number().min(0).max(1).optional();

  const ModelHint = z.looseObject({ name: z.string().optional() });
  const ModelPreferences = z.looseObject({
    hints: z.array(ModelHint).optional(),
    costPriority: priority,
    speedPriority: priority,
    intelligencePriority: priority,
  });
  // One block, or (from 2025-11-25) several, e.g. parallel tool uses.
  const SamplingContent = anyOf(
    SamplingMessageContentBlock,
    member(revision, V2025_11_25, z.array(SamplingMessageContentBlock)),
  );
  const SamplingMessage = z.looseObject({
    role: Role,
    content: SamplingContent,
    _meta: since(revision, V2025_11_25, MetaSchema).optional(),
  });
  const ToolChoice = z.looseObject({ mode: z.enum(['auto', 'required', 'none']).optional() });
  const CreateMessageRequestParams = serverRequestParams(revision).extend({
    messages: z.array(SamplingMessage),
    modelPreferences: ModelPreferences.optional(),
    systemPrompt: z.string().optional(),
    includeContext: z.enum(['none', 'thisServer', 'allServers']).optional(),
    temperature: z.number().optional(),
    maxTokens: z.number().int(),
    stopSequences: z.array(z.string()).optional(),
    metadata: chooseAsOlder(revision, V2026_07_28, JSONObjectSchema, z.looseObject({})).optional(),
    tools: since(revision, V2025_11_25, z.array(Tool)).optional(),
    toolChoice: since(revision, V2025_11_25, ToolChoice).optional(),
    task: until(revision, V2025_11_25, since(revision, V2025_11_25, TaskMetadata)).optional(),
  });

  return {
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    ToolChoice,
    CreateMessageRequestParams,
    CreateMessageRequest: z.looseObject(
      serverRequestShape(revision, 'sampling/createMessage', CreateMessageRequestParams),
    ),
    CreateMessageResult: clientResultBase(revision, true).extend({
      role: Role,
      content: SamplingContent,
      model: z.string(),
      stopReason: z.string().optional(),
    }),
  };
});

const latest = () => samplingSchemas(LATEST_LEGACY_REVISION);
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof samplingSchemas>;

/** A hint for model selection: a (sub)string of a model name. */
export type ModelHint = z.infer<Schemas['ModelHint']>;

/** The server's preferences for model selection: hints and cost, speed and intelligence priorities. */
export type ModelPreferences = z.infer<Schemas['ModelPreferences']>;

/** One message of a sampling conversation. */
export type SamplingMessage = z.infer<Schemas['SamplingMessage']>;

/** How the model may use the offered tools: `auto`, `required` or `none`. */
export type ToolChoice = z.infer<Schemas['ToolChoice']>;

/** Params of `sampling/createMessage`. */
export type CreateMessageRequestParams = z.infer<Schemas['CreateMessageRequestParams']>;
/** `sampling/createMessage`: the server asks the client to sample from its model. */
export const CreateMessageRequestSchema = z.lazy(() => latest().CreateMessageRequest);
export type CreateMessageRequest = z.infer<typeof CreateMessageRequestSchema>;
/** The result of `sampling/createMessage`: the model's message and why it stopped. */
export const CreateMessageResultSchema = z.lazy(() => latest().CreateMessageResult);
/** The result of `sampling/createMessage`: the model's message and why it stopped. */
export type CreateMessageResult = z.infer<typeof CreateMessageResultSchema>;
