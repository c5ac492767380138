/**
 * The errors 2026-07-28 names in its schema: the JSON-RPC error objects by code, and the error
 * responses of the modern protocol (header mismatch, missing client capability, unsupported
 * revision).
 */
import { z } from 'zod';
import { RequestIdSchema } from '../jsonrpc/message';
import { ErrorCode } from '../jsonrpc/errors';
import { JsonRpcVersionSchema, perRevision } from './build';
import { capabilitySchemas } from './capabilities';
import { envelopeSchemas } from './envelope';

/** Builds the error schemas of one revision (only 2026-07-28 and later expose them). */
export const errorSchemas = perRevision((revision) => {
  const { Error: ErrorObject } = envelopeSchemas(revision);
  const { ClientCapabilities } = capabilitySchemas(revision);
  const withCode = <const C extends number>(code: C) => ErrorObject.extend({ code: z.literal(code) });
  const errorResponse = <E extends z.ZodType>(error: E) =>
    z.looseObject({ jsonrpc: JsonRpcVersionSchema, id: RequestIdSchema.optional(), error });

  return {
    ParseError: withCode(ErrorCode.ParseError),
    InvalidRequestError: withCode(ErrorCode.InvalidRequest),
    MethodNotFoundError: withCode(ErrorCode.MethodNotFound),
    InvalidParamsError: withCode(ErrorCode.InvalidParams),
    InternalError: withCode(ErrorCode.InternalError),
    HeaderMismatchError: errorResponse(withCode(ErrorCode.HeaderMismatch)),
    MissingRequiredClientCapabilityError: errorResponse(
      withCode(ErrorCode.MissingRequiredClientCapability).extend({
        data: z.looseObject({ requiredCapabilities: ClientCapabilities }),
      }),
    ),
    UnsupportedProtocolVersionError: errorResponse(
      withCode(ErrorCode.UnsupportedProtocolVersion).extend({
        data: z.looseObject({ requested: z.string(), supported: z.array(z.string()) }),
      }),
    ),
  };
});

/** What this module's builder makes, for any revision: the types below are inferred from it. */
type Schemas = ReturnType<typeof errorSchemas>;

/** The error response to a request whose HTTP headers disagree with its body (-32020). */
export type HeaderMismatchError = z.infer<Schemas['HeaderMismatchError']>;

/** The error response to a request that needs a client capability the request did not declare (-32021). */
export type MissingRequiredClientCapabilityError = z.infer<Schemas['MissingRequiredClientCapabilityError']>;

/** The error response to a request of a revision the server does not speak (-32022), naming those it does. */
export type UnsupportedProtocolVersionError = z.infer<Schemas['UnsupportedProtocolVersionError']>;
