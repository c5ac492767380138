/**
 * The requests a server sends to a client (sampling, elicitation, roots): the handler types a user
 * supplies, the capabilities they imply, and the wrapping that validates every answer before it
 * goes back to the server.
 */
import { map } from '../rx/rxjs';
import type { Logger } from 'pino';
import { JsonRpcError } from '../jsonrpc/errors';
import type { Connection } from '../connection/connection';
import { observeOutput } from '../connection/dispatcher';
import type { HandlerOutput, RequestContext, RequestHandler } from '../connection/dispatcher';
import { isHandlerEvent } from '../connection/handler-events';
import type { HandlerEvent } from '../connection/handler-events';
import type { ElicitRequestFormParams, ElicitRequestParams, ElicitResult } from '../schema/elicitation';
import type { ParamsOf, ServerRequestMap } from '../schema/method-map';
import { describeIssues, toValidationIssues } from '../validation/issues';
import { resultSchemaFor } from '../schema/methods';
import { LATEST_LEGACY_REVISION } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import type { Root } from '../schema/roots';
import type { CreateMessageRequestParams, CreateMessageResult } from '../schema/sampling';
import type { SchemaCheck } from './schema-checks';

/**
 * Answers `sampling/createMessage`: a value, a Promise, or an Observable that may emit `progress()`
 * events before its result. Unsubscribing (the server cancelled) should stop the model call.
 */
export type SamplingHandler = (
  params: CreateMessageRequestParams,
  context: RequestContext,
) => HandlerOutput<CreateMessageResult>;

/** Answers `elicitation/create`, form or URL mode (see `mode`; a request without one is form mode). */
export type ElicitationHandler = (params: ElicitRequestParams, context: RequestContext) => HandlerOutput<ElicitResult>;

/** How the client takes part in elicitation. */
export interface ElicitationOptions {
  readonly handler: ElicitationHandler;
  /** Accept form-mode requests. Default true. */
  readonly form?: boolean;
  /** Accept URL-mode requests (2025-11-25). Default false. */
  readonly url?: boolean;
  /**
   * Fill fields the user left out of an accepted form with the `default` of their property in
   * `requestedSchema`, before the answer is validated and sent. Default false.
   */
  readonly applyDefaults?: boolean;
}

/** What `connect` needs to answer the server's requests. */
export interface ServerRequestOptions {
  readonly sampling?: SamplingHandler;
  readonly elicitation?: ElicitationHandler | ElicitationOptions;
  /**
   * The roots to offer; `roots/list` answers them and `setRoots` replaces them. Or a handler that
   * answers each `roots/list` itself (a proxy asks its own caller).
   */
  readonly roots?: readonly Root[] | RootsHandler;
}

/** Answers one `roots/list` with the roots the client offers now. */
export type RootsHandler = (
  params: Record<string, unknown>,
  context: RequestContext,
) => HandlerOutput<{ roots: readonly Root[] } & Record<string, unknown>>;

/** The client's handlers for the server's requests, plus a way to change the roots. */
export interface ServerRequestHandlers {
  /** By method: `sampling/createMessage`, `elicitation/create`, `roots/list` (those given). */
  readonly handlers: Readonly<Record<string, RequestHandler>>;
  /** The capabilities the given handlers imply. */
  readonly capabilities: Record<string, unknown>;
  /** Replaces the roots; the caller then sends `notifications/roots/list_changed`. */
  setRoots(roots: readonly Root[]): void;
}

function elicitationOptions(option: ElicitationHandler | ElicitationOptions): ElicitationOptions {
  return typeof option === 'function' ? { handler: option } : option;
}

/** The capabilities a client declares for the handlers it was given. */
export function capabilitiesFor(options: ServerRequestOptions): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  if (options.sampling) capabilities.sampling = {};
  if (options.elicitation) {
    const { form = true, url = false } = elicitationOptions(options.elicitation);
    // An empty object means form mode only (2025-11-25 → Elicitation → Capabilities) and is what
    // servers of 2025-06-18 expect, so spell out the modes only when URL mode is involved.
    capabilities.elicitation = url ? { ...(form ? { form: {} } : {}), url: {} } : {};
  }
  if (options.roots) capabilities.roots = { listChanged: true };
  return capabilities;
}

/** A request the server sends and the client answers. */
type Answered = keyof ServerRequestMap;

/**
 * Runs `handler` and passes every result value (not progress or log events) through `check`, which
 * validates what the handler answered (the user's code) before it goes back to the server.
 */
function checked<M extends Answered>(
  handler: (params: ParamsOf<M>, context: RequestContext) => HandlerOutput<Record<string, unknown>>,
  check: (result: Record<string, unknown>, params: ParamsOf<M>, context: RequestContext) => Record<string, unknown>,
): RequestHandler<M, unknown, Record<string, unknown>> {
  return (params, context) =>
    observeOutput(handler(params, context)).pipe(
      map((value): Record<string, unknown> | HandlerEvent =>
        isHandlerEvent(value) ? value : check(value ?? {}, params, context),
      ),
    );
}

/** Thrown (and answered -32603, with the details in the client's log) when our own answer is invalid. */
function invalidAnswer(method: string, problem: string): Error {
  return new Error(`The client's answer to ${method} is invalid: ${problem}`);
}

function validateResult(method: string, revision: string, result: Record<string, unknown>): Record<string, unknown> {
  const schema = resultSchemaFor(method, revision as Revision) ?? resultSchemaFor(method, LATEST_LEGACY_REVISION);
  if (!schema) return result;
  const parsed = schema.safeParse(result);
  if (!parsed.success) throw invalidAnswer(method, describeIssues(toValidationIssues(parsed.error)));
  return parsed.data as Record<string, unknown>;
}

/**
 * Adds the `default` of each property of a form's `requestedSchema` that `content` lacks. Returns
 * a new object; `content` is not changed.
 */
export function applyElicitationDefaults(
  requestedSchema: ElicitRequestFormParams['requestedSchema'],
  content: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const filled: Record<string, unknown> = { ...content };
  for (const [key, property] of Object.entries(requestedSchema.properties)) {
    const fallback = (property as { default?: unknown }).default;
    if (fallback !== undefined && filled[key] === undefined) {
      filled[key] = Array.isArray(fallback) ? [...(fallback as unknown[])] : fallback;
    }
  }
  return filled;
}

/** A content value as the spec's ElicitResult allows it: string, number, boolean or string[]. */
function isContentValue(value: unknown): boolean {
  if (typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function checkElicitResult(
  check: SchemaCheck,
  options: ElicitationOptions,
  result: Record<string, unknown>,
  params: ElicitRequestParams,
  context: RequestContext,
): Record<string, unknown> {
  const method = 'elicitation/create';
  const form = params.mode === 'url' ? undefined : params;
  let content = result.content as Record<string, unknown> | undefined;
  if (form && result.action === 'accept' && options.applyDefaults) {
    content = applyElicitationDefaults(form.requestedSchema, content);
  }
  // The published JSON schemas type content numbers as integers, but the spec's TypeScript source
  // (and NumberSchema with `type: "number"`) allow any number, so content is checked here against
  // the spec's types and the form, and the rest of the result against the revision's schema.
  const { content: _ignored, ...rest } = result;
  const checkedRest = validateResult(method, context.revision, rest);
  if (content === undefined) return checkedRest;
  if (!form) throw invalidAnswer(method, 'content is only allowed in answers to form-mode requests');
  if (result.action !== 'accept')
    throw invalidAnswer(method, `content is only allowed with action "accept", not "${String(result.action)}"`);
  const bad = Object.entries(content).find(([, value]) => !isContentValue(value));
  if (bad) throw invalidAnswer(method, `content.${bad[0]} must be a string, number, boolean or array of strings`);
  const issues = check(form.requestedSchema, content);
  if (issues.length > 0)
    throw invalidAnswer(method, `content does not match requestedSchema: ${describeIssues(issues)}`);
  return { ...checkedRest, content };
}

/** The handlers of a client that answers none of the server's requests: one record for all such clients. */
const NO_HANDLERS: Readonly<Record<string, RequestHandler>> = Object.freeze({});

/** Roots set on a client that declared none: no server may ask for them, so none are kept. */
const ROOTS_NOT_DECLARED = (): void => undefined;

/**
 * The handlers that answer the server's requests (sampling, elicitation, roots), by method, and
 * the capabilities they imply. Every answer is validated against the revision's result schema
 * (and, for an accepted form, against its `requestedSchema`) before it goes back; an invalid answer
 * is logged and the server gets -32603. In a handshake revision the handlers serve the server's
 * requests on the connection; in a modern one they answer the input requests of
 * `input_required` results.
 */
export function serverRequestHandlers(
  options: ServerRequestOptions,
  check: SchemaCheck,
  logger: Logger,
): ServerRequestHandlers {
  if (!options.sampling && !options.elicitation && !options.roots)
    return { handlers: NO_HANDLERS, capabilities: {}, setRoots: ROOTS_NOT_DECLARED };
  let roots: readonly Root[] | RootsHandler = options.roots ?? [];
  const handlers: Record<string, RequestHandler> = {};
  if (options.sampling) {
    handlers['sampling/createMessage'] = checked<'sampling/createMessage'>(
      options.sampling,
      (result, _params, context) => validateResult('sampling/createMessage', context.revision, result),
    );
  }
  if (options.elicitation) handlers['elicitation/create'] = elicitationHandler(options.elicitation, check, logger);
  if (options.roots) {
    const listed = checked<'roots/list'>(
      (params, context) => (typeof roots === 'function' ? roots(params, context) : { roots }),
      (result, _params, context) =>
        validateResult('roots/list', context.revision, {
          ...result,
          roots: ((result.roots ?? []) as readonly Root[]).map((root) => ({ ...root })),
        }),
    );
    handlers['roots/list'] = listed;
  }
  return {
    handlers,
    capabilities: capabilitiesFor(options),
    setRoots: (next) => {
      roots = [...next];
    },
  };
}

/** The elicitation handler: refuses a mode the client did not declare, checks the answer. */
function elicitationHandler(
  option: ElicitationHandler | ElicitationOptions,
  check: SchemaCheck,
  logger: Logger,
): RequestHandler {
  const elicitation = elicitationOptions(option);
  const { form = true, url = false } = elicitation;
  const handler: ElicitationHandler = (params, context) => {
    // A request without `mode` is form mode (2025-11-25 → Elicitation → Elicitation Requests).
    const mode = params.mode === 'url' ? 'url' : 'form';
    if ((mode === 'url' && !url) || (mode === 'form' && !form)) {
      logger.warn({ mode }, 'elicitation request in a mode the client did not declare');
      throw JsonRpcError.invalidParams(`This client does not support ${mode}-mode elicitation`);
    }
    return elicitation.handler(params, context);
  };
  return checked<'elicitation/create'>(handler, (result, params, context) =>
    checkElicitResult(check, elicitation, result, params, context),
  );
}

/** Installs the handlers on a connection of a handshake revision, where the server sends its requests. */
export function installServerRequestHandlers(connection: Connection, handlers: ServerRequestHandlers): void {
  for (const [method, handler] of Object.entries(handlers.handlers)) connection.setRequestHandler(method, handler);
}
