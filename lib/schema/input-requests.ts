/**
 * Multi round-trip requests (2026-07-28 on; spec: Basic → Patterns → MRTR): instead of sending
 * `sampling/createMessage`, `elicitation/create` or `roots/list` to the client, a server answers
 * with an `InputRequiredResult` whose `inputRequests` carry them; the client retries the original
 * request with the answers in `inputResponses` and the server's opaque `requestState`.
 */
import { z } from 'zod';
import { anyOfTagged, perRevision, since, V2026_07_28 } from './build';
import { elicitationSchemas } from './elicitation';
import { envelopeSchemas } from './envelope';
import { featuresOf, revisionAtLeast, type Revision } from './revisions';
import { rootSchemas } from './roots';
import { samplingSchemas } from './sampling';

/** Builds the input request and response schemas of one revision (only 2026-07-28 and later expose them). */
export const inputRequestSchemas = perRevision((revision) => {
  const { RequestParams, Result } = envelopeSchemas(revision);
  const { CreateMessageRequest, CreateMessageResult } = samplingSchemas(revision);
  const { ElicitRequest, ElicitResult } = elicitationSchemas(revision);
  const { ListRootsRequest, ListRootsResult } = rootSchemas(revision);
  const InputRequest = anyOfTagged('method', CreateMessageRequest, ListRootsRequest, ElicitRequest);
  const InputRequests = z.record(z.string(), InputRequest);
  const InputResponse = z.union([CreateMessageResult, ListRootsResult, ElicitResult]);
  const InputResponses = z.record(z.string(), InputResponse);
  return {
    InputRequest,
    InputRequests,
    InputResponse,
    InputResponses,
    InputRequiredResult: Result.extend({
      inputRequests: InputRequests.optional(),
      requestState: z.string().optional(),
    }),
    InputResponseRequestParams: RequestParams.extend(retryShape(revision, InputResponses)),
  };
});

function retryShape<R extends z.ZodType>(revision: Revision, responses: R) {
  return {
    inputResponses: since(revision, V2026_07_28, responses).optional(),
    requestState: since(revision, V2026_07_28, z.string()).optional(),
  };
}

/**
 * The params a request that may need input carries when it is retried (`tools/call`,
 * `prompts/get`, `resources/read` from 2026-07-28): the client's `inputResponses`, keyed as the
 * server's `inputRequests` were, and the server's `requestState`, echoed unchanged.
 */
export function inputResponseParamsShape(revision: Revision) {
  // Before 2026-07-28 `since` accepts anything there: the input schemas (sampling's, elicitation's,
  // roots') are not built for a revision that has no use for them.
  type Responses = ReturnType<typeof inputRequestSchemas>['InputResponses'];
  const responses = revisionAtLeast(revision, V2026_07_28)
    ? inputRequestSchemas(revision).InputResponses
    : (z.unknown() as unknown as Responses);
  return retryShape(revision, responses);
}

interface InputParts {
  readonly request: z.ZodObject;
  readonly response: z.ZodType;
}

/** The methods a server may ask its client for input with, and the schemas of each part. */
const INPUT_METHODS: Readonly<Record<string, (revision: Revision) => InputParts>> = {
  'sampling/createMessage': (revision) => {
    const { CreateMessageRequest, CreateMessageResult } = samplingSchemas(revision);
    return { request: CreateMessageRequest, response: CreateMessageResult };
  },
  'elicitation/create': (revision) => {
    const { ElicitRequest, ElicitResult } = elicitationSchemas(revision);
    return { request: ElicitRequest, response: ElicitResult };
  },
  'roots/list': (revision) => {
    const { ListRootsRequest, ListRootsResult } = rootSchemas(revision);
    return { request: ListRootsRequest, response: ListRootsResult };
  },
};

function parts(method: string, revision: Revision): InputParts | undefined {
  if (!Object.hasOwn(INPUT_METHODS, method) || !featuresOf(revision).multiRoundTrip) return undefined;
  return INPUT_METHODS[method]!(revision);
}

/**
 * The schema of the `params` of an input request for `method` (`sampling/createMessage`,
 * `elicitation/create` or `roots/list`) in `revision`, e.g. `ElicitRequestParams`; undefined when
 * the method is none of these or the revision has no multi round-trip requests. Optional params
 * are unwrapped, so check `params ?? {}`. Schemas are built once per revision.
 */
export function inputRequestSchemaFor(method: string, revision: Revision = V2026_07_28): z.ZodType | undefined {
  const params = parts(method, revision)?.request.shape.params as z.ZodType | undefined;
  return params instanceof z.ZodOptional ? (params.unwrap() as z.ZodType) : params;
}

/**
 * The schema of the client's answer to an input request for `method` in `revision` (e.g.
 * `ElicitResult`), as it travels in `inputResponses`; undefined as for `inputRequestSchemaFor`.
 */
export function inputResponseSchemaFor(method: string, revision: Revision = V2026_07_28): z.ZodType | undefined {
  return parts(method, revision)?.response;
}

/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof inputRequestSchemas>;

/** One request for input: a `sampling/createMessage`, `roots/list` or `elicitation/create` without envelope. */
export type InputRequest = z.infer<Schemas['InputRequest']>;

/** The input requests of an `InputRequiredResult`, by a key the server chooses. */
export type InputRequests = z.infer<Schemas['InputRequests']>;

/** One answer to an input request: a `CreateMessageResult`, `ListRootsResult` or `ElicitResult`. */
export type InputResponse = z.infer<Schemas['InputResponse']>;

/** The answers a retried request carries, keyed as the server's `inputRequests` were. */
export type InputResponses = z.infer<Schemas['InputResponses']>;

/** The interim result (`resultType: 'input_required'`) that asks the client for input before a retry. */
export type InputRequiredResult = z.infer<Schemas['InputRequiredResult']>;

/** The params every retried request carries: `_meta`, `inputResponses` and `requestState`. */
export type InputResponseRequestParams = z.infer<Schemas['InputResponseRequestParams']>;
