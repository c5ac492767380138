/**
 * Elicitation: a server asks the user, through the client, for structured input (form mode, from
 * 2025-06-18) or to visit a URL (URL mode, from 2025-11-25); from 2026-07-28 as an input request
 * of a multi round-trip request.
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import {
  anyOf,
  choose,
  JsonRpcVersionSchema,
  member,
  perRevision,
  requiredUntil,
  since,
  until,
  V2025_11_25,
} from './build';
import {
  clientResultBase,
  envelopeSchemas,
  notificationShape,
  serverRequestParams,
  serverRequestShape,
} from './envelope';
import { LATEST_LEGACY_REVISION, type Revision } from './revisions';
import { taskSchemas } from './tasks';

/** What the fields of a form share: a title, a description, and `default`s that 2025-11-25 added. */
function fieldParts(revision: Revision) {
  return {
    from1125: <T extends z.ZodType>(schema: T) => since(revision, V2025_11_25, schema).optional(),
    described: { title: z.string().optional(), description: z.string().optional() },
  };
}

type FieldParts = ReturnType<typeof fieldParts>;

/** The string, number and boolean fields of a form. */
function primitiveFieldSchemas({ from1125, described }: FieldParts) {
  return {
    StringSchema: z.looseObject({
      type: z.literal('string'),
      ...described,
      minLength: z.number().int().optional(),
      maxLength: z.number().int().optional(),
      format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
      default: from1125(z.string()),
    }),
    NumberSchema: z.looseObject({
      type: z.enum(['number', 'integer']),
      ...described,
      minimum: z.number().optional(),
      maximum: z.number().optional(),
      default: from1125(z.number()),
    }),
    BooleanSchema: z.looseObject({ type: z.literal('boolean'), ...described, default: z.boolean().optional() }),
  };
}

/** The enum fields of a form: single or multiple choice, with or without titles, and the 2025-06-18 shape. */
function enumFieldSchemas(revision: Revision, { from1125, described }: FieldParts) {
  const titledOption = z.looseObject({ const: z.string(), title: z.string() });
  const UntitledSingleSelectEnumSchema = z.looseObject({
    type: z.literal('string'),
    ...described,
    enum: z.array(z.string()),
    default: z.string().optional(),
  });
  const TitledSingleSelectEnumSchema = z.looseObject({
    type: z.literal('string'),
    ...described,
    oneOf: z.array(titledOption),
    default: z.string().optional(),
  });
  const multiSelect = {
    type: z.literal('array'),
    ...described,
    minItems: z.number().int().optional(),
    maxItems: z.number().int().optional(),
    default: z.array(z.string()).optional(),
  };
  const UntitledMultiSelectEnumSchema = z.looseObject({
    ...multiSelect,
    items: z.looseObject({ type: z.literal('string'), enum: z.array(z.string()) }),
  });
  const TitledMultiSelectEnumSchema = z.looseObject({
    ...multiSelect,
    items: z.looseObject({ anyOf: z.array(titledOption) }),
  });
  // The only enum shape of 2025-06-18 (then called EnumSchema); `enumNames` is not JSON Schema.
  const LegacyTitledEnumSchema = z.looseObject({
    type: z.literal('string'),
    ...described,
    enum: z.array(z.string()),
    enumNames: z.array(z.string()).optional(),
    default: from1125(z.string()),
  });
  const EnumSchema = choose(
    revision,
    V2025_11_25,
    z.union([
      UntitledSingleSelectEnumSchema,
      TitledSingleSelectEnumSchema,
      UntitledMultiSelectEnumSchema,
      TitledMultiSelectEnumSchema,
      LegacyTitledEnumSchema,
    ]),
    LegacyTitledEnumSchema,
  );

  return {
    UntitledSingleSelectEnumSchema,
    TitledSingleSelectEnumSchema,
    SingleSelectEnumSchema: z.union([UntitledSingleSelectEnumSchema, TitledSingleSelectEnumSchema]),
    UntitledMultiSelectEnumSchema,
    TitledMultiSelectEnumSchema,
    MultiSelectEnumSchema: z.union([UntitledMultiSelectEnumSchema, TitledMultiSelectEnumSchema]),
    LegacyTitledEnumSchema,
    EnumSchema,
  };
}

/** `elicitation/create` and its params in either mode; `field` is any field of a form. */
function elicitRequestSchemas<F extends z.ZodType>(revision: Revision, { from1125 }: FieldParts, field: F) {
  const RequestParams = serverRequestParams(revision);
  const { TaskMetadata } = taskSchemas(revision);
  const ElicitRequestFormParams = RequestParams.extend({
    mode: from1125(z.literal('form')),
    message: z.string(),
    requestedSchema: z.looseObject({
      $schema: from1125(z.string()),
      type: z.literal('object'),
      properties: z.record(z.string(), field),
      required: z.array(z.string()).optional(),
    }),
    task: until(revision, V2025_11_25, from1125(TaskMetadata)),
  });
  const ElicitRequestURLParams = RequestParams.extend({
    mode: z.literal('url'),
    message: z.string(),
    // 2026-07-28 dropped the id with notifications/elicitation/complete: the retry tells the outcome.
    elicitationId: requiredUntil(revision, V2025_11_25, z.string()),
    url: z.string(),
    task: until(revision, V2025_11_25, TaskMetadata.optional()),
  });
  const ElicitRequestParams = anyOf(member(revision, V2025_11_25, ElicitRequestURLParams), ElicitRequestFormParams);

  return {
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitRequestParams,
    ElicitRequest: z.looseObject(serverRequestShape(revision, 'elicitation/create', ElicitRequestParams)),
  };
}

/**
 * How an elicitation ends: the client's result, the notification that a URL-mode one finished, and
 * the error that asks for URL elicitations (`urlParams`) first.
 */
function elicitOutcomeSchemas<U extends z.ZodType>(revision: Revision, urlParams: U) {
  const { Error: ErrorObject } = envelopeSchemas(revision);
  const ElicitationCompleteParams = z.looseObject({ elicitationId: z.string() });

  return {
    ElicitResult: clientResultBase(revision).extend({
      action: z.enum(['accept', 'decline', 'cancel']),
      // The published JSON Schema says integer, but the spec's types say number and forms have
      // `number` fields (a score of 95.5): accept any number (see spec/schema/differences.spec.ts).
      content: z
        .record(
          z.string(),
          anyOf(z.string(), z.number(), z.boolean(), member(revision, V2025_11_25, z.array(z.string()))),
        )
        .optional(),
    }),
    ElicitationCompleteNotification: z.looseObject(
      notificationShape(revision, 'notifications/elicitation/complete', ElicitationCompleteParams),
    ),
    URLElicitationRequiredError: z.looseObject({
      jsonrpc: JsonRpcVersionSchema,
      id: RequestIdSchema.optional(),
      error: ErrorObject.extend({
        code: z.literal(-32042),
        data: z.looseObject({ elicitations: z.array(urlParams) }),
      }),
    }),
  };
}

/** Builds the elicitation schemas of one revision. */
export const elicitationSchemas = perRevision((revision) => {
  const parts = fieldParts(revision);
  const primitives = primitiveFieldSchemas(parts);
  const enums = enumFieldSchemas(revision, parts);
  const PrimitiveSchemaDefinition = z.union([
    primitives.StringSchema,
    primitives.NumberSchema,
    primitives.BooleanSchema,
    enums.EnumSchema,
  ]);
  const requests = elicitRequestSchemas(revision, parts, PrimitiveSchemaDefinition);

  return {
    ...primitives,
    ...enums,
    PrimitiveSchemaDefinition,
    ...requests,
    ...elicitOutcomeSchemas(revision, requests.ElicitRequestURLParams),
  };
});

const latest = () => elicitationSchemas(LATEST_LEGACY_REVISION);
/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof elicitationSchemas>;

/** A string field of an elicitation form, with optional length limits and format. */
export type StringSchema = z.infer<Schemas['StringSchema']>;
/** A number or integer field of an elicitation form. */
export type NumberSchema = z.infer<Schemas['NumberSchema']>;
/** A boolean field of an elicitation form. */
export type BooleanSchema = z.infer<Schemas['BooleanSchema']>;
/** A single choice among plain string values. */
export type UntitledSingleSelectEnumSchema = z.infer<Schemas['UntitledSingleSelectEnumSchema']>;
/** A single choice among values with display titles (`oneOf` of `const` and `title`). */
export type TitledSingleSelectEnumSchema = z.infer<Schemas['TitledSingleSelectEnumSchema']>;
/** Any single-choice enum field. */
export type SingleSelectEnumSchema = z.infer<Schemas['SingleSelectEnumSchema']>;
/** A multiple choice among plain string values. */
export type UntitledMultiSelectEnumSchema = z.infer<Schemas['UntitledMultiSelectEnumSchema']>;
/** A multiple choice among values with display titles. */
export type TitledMultiSelectEnumSchema = z.infer<Schemas['TitledMultiSelectEnumSchema']>;
/** Any multiple-choice enum field. */
export type MultiSelectEnumSchema = z.infer<Schemas['MultiSelectEnumSchema']>;
/** The 2025-06-18 enum field with parallel `enumNames` (kept for compatibility). */
export type LegacyTitledEnumSchema = z.infer<Schemas['LegacyTitledEnumSchema']>;
/** Any enum field of an elicitation form. */
export type EnumSchema = z.infer<Schemas['EnumSchema']>;
/** Any field of an elicitation form: string, number, boolean or enum. */
export type PrimitiveSchemaDefinition = z.infer<Schemas['PrimitiveSchemaDefinition']>;

/** Params of a form-mode `elicitation/create`: a message and a flat object schema. */
export type ElicitRequestFormParams = z.infer<Schemas['ElicitRequestFormParams']>;
/** Params of a URL-mode `elicitation/create`: a message, an id and the URL to open. */
export type ElicitRequestURLParams = z.infer<Schemas['ElicitRequestURLParams']>;
/** Params of `elicitation/create`, either mode. */
export type ElicitRequestParams = z.infer<Schemas['ElicitRequestParams']>;
/** `elicitation/create`: the server asks the user for input. */
export const ElicitRequestSchema = z.lazy(() => latest().ElicitRequest);
export type ElicitRequest = z.infer<typeof ElicitRequestSchema>;
/** The result of `elicitation/create`: accepted (with content), declined or cancelled. */
export type ElicitResult = z.infer<Schemas['ElicitResult']>;
/** A `notifications/elicitation/complete` notification. */
export type ElicitationCompleteNotification = z.infer<Schemas['ElicitationCompleteNotification']>;
/** The error response (-32042) that asks the client to complete URL elicitations first. */
export type URLElicitationRequiredError = z.infer<Schemas['URLElicitationRequiredError']>;
