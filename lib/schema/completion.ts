/**
 * Argument completion: `completion/complete` and the references it completes for.
 */
import { z } from 'zod';
import { choose, perRevision, since, V2025_06_18, V2026_07_28 } from './build';
import { envelopeSchemas, requestShape } from './envelope';

/** Builds the completion schemas of one revision. */
export const completionSchemas = perRevision((revision) => {
  const { RequestParams, Result } = envelopeSchemas(revision);
  const PromptReference = z.looseObject({
    type: z.literal('ref/prompt'),
    name: z.string(),
    title: since(revision, V2025_06_18, z.string()).optional(),
  });
  const ResourceTemplateReference = z.looseObject({ type: z.literal('ref/resource'), uri: z.string() });
  const CompleteRequestParams = RequestParams.extend({
    ref: z.discriminatedUnion('type', [PromptReference, ResourceTemplateReference]),
    argument: z.looseObject({ name: z.string(), value: z.string() }),
    context: since(
      revision,
      V2025_06_18,
      z.looseObject({ arguments: z.record(z.string(), z.string()).optional() }),
    ).optional(),
  });

  return {
    PromptReference,
    ResourceTemplateReference,
    /** Up to 2025-03-26 the resource reference was called `ResourceReference`. */
    ResourceReference: ResourceTemplateReference,
    CompleteRequestParams,
    CompleteRequest: z.looseObject(requestShape(revision, 'completion/complete', CompleteRequestParams)),
    CompleteResult: Result.extend({
      completion: z.looseObject({
        // The spec always capped values at 100; the JSON Schema says so from 2026-07-28.
        values: choose(revision, V2026_07_28, z.array(z.string()).max(100), z.array(z.string())),
        total: z.number().int().optional(),
        hasMore: z.boolean().optional(),
      }),
    }),
  };
});

/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof completionSchemas>;

/** Completion for an argument of a prompt. */
export type PromptReference = z.infer<Schemas['PromptReference']>;

/** Completion for a variable of a resource template. */
export type ResourceTemplateReference = z.infer<Schemas['ResourceTemplateReference']>;

/** Params of `completion/complete`: what to complete, the partial value, and earlier arguments. */
export type CompleteRequestParams = z.infer<Schemas['CompleteRequestParams']>;
/** `completion/complete`: suggestions for an argument value. */
export type CompleteRequest = z.infer<Schemas['CompleteRequest']>;
/** The result of `completion/complete`: at most 100 values, with `total` and `hasMore`. */
export type CompleteResult = z.infer<Schemas['CompleteResult']>;
