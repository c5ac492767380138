/**
 * Answering the input requests of an `InputRequiredResult` (spec 2026-07-28: Multi Round-Trip
 * Requests) with the handlers the client was given for sampling, elicitation and roots: the same
 * handlers that answer those requests when a server of a handshake revision sends them.
 */
import { defer, filter, forkJoin, last, map, Observable, of, throwError } from '../rx/rxjs';
import { observeOutput } from '../connection/dispatcher';
import type { RequestContext, RequestHandler } from '../connection/dispatcher';
import { isHandlerEvent } from '../connection/handler-events';
import { ProtocolError } from '../jsonrpc/errors';
import { describeIssues, toValidationIssues } from '../validation/issues';
import { inputRequestSchemaFor } from '../schema/input-requests';
import { checkObjectParams, checkParams } from '../schema/methods';
import { LATEST_LEGACY_REVISION } from '../schema/revisions';
import type { Revision } from '../schema/revisions';

/** One request the server needs answered before it can finish: `elicitation/create`, `sampling/createMessage` or `roots/list`. */
export interface InputRequest {
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** The input requests of an `InputRequiredResult`, by the server's key. */
export type InputRequests = Readonly<Record<string, InputRequest>>;

/** The client's answers, by the same keys. */
export type InputResponses = Record<string, Record<string, unknown>>;

/** The methods a server may ask for as input. */
export const INPUT_METHODS: ReadonlySet<string> = new Set([
  'elicitation/create',
  'sampling/createMessage',
  'roots/list',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `inputRequests` from an `InputRequiredResult`; throws `ProtocolError` naming the key of an
 * entry that is not a request object of a method a server may ask for.
 */
export function readInputRequests(value: unknown, method: string): InputRequests {
  if (value === undefined) return {};
  if (!isObject(value))
    throw new ProtocolError(`Invalid input_required result for ${method}: inputRequests must be an object`);
  const requests: Record<string, InputRequest> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (!isObject(entry) || typeof entry.method !== 'string') {
      throw new ProtocolError(`Invalid input_required result for ${method}: inputRequests.${key} is not a request`);
    }
    if (!INPUT_METHODS.has(entry.method)) {
      throw new ProtocolError(
        `Invalid input_required result for ${method}: inputRequests.${key} asks for ${entry.method}, which a server may not ask for`,
      );
    }
    if (entry.params !== undefined && !isObject(entry.params)) {
      throw new ProtocolError(
        `Invalid input_required result for ${method}: inputRequests.${key}.params must be an object`,
      );
    }
    requests[key] =
      entry.params === undefined ? { method: entry.method } : { method: entry.method, params: entry.params };
  }
  return requests;
}

/** A handler context for an input request: no progress, logs or nested requests go anywhere. */
function inputContext(key: string, request: InputRequest, revision: Revision, signal: AbortSignal): RequestContext {
  return {
    requestId: key,
    method: request.method,
    revision,
    signal,
    progress: () => undefined,
    log: () => undefined,
    notify: () => undefined,
    request: (method: string) =>
      throwError(
        () => new ProtocolError(`${method} cannot be sent while answering input request ${key} (${request.method})`),
      ),
  };
}

/** Answers one input request with its handler; its params are checked against the revision's schema first. */
function answerOne(
  key: string,
  request: InputRequest,
  handler: RequestHandler | undefined,
  revision: Revision,
): Observable<Record<string, unknown>> {
  return defer(() => {
    if (!handler) {
      return throwError(
        () =>
          new ProtocolError(
            `The server asked for ${request.method} (input request ${key}), which this client does not answer`,
          ),
      );
    }
    // Where the revision's registry has no such request (input requests are not sent as requests
    // in the modern revisions), the revision's input request schema checks the params, else the
    // newest handshake revision's (a URL elicitation of 2026-07-28 has no elicitationId).
    const raw = request.params ?? {};
    const checked =
      checkParams(request.method, revision, raw) ??
      checkObjectParams(inputRequestSchemaFor(request.method, revision), raw) ??
      checkParams(request.method, LATEST_LEGACY_REVISION, raw);
    if (checked && !checked.success) {
      const problem = describeIssues(toValidationIssues(checked.error));
      return throwError(() => new ProtocolError(`Invalid input request ${key} (${request.method}): ${problem}`));
    }
    const params = checked?.data ?? raw;
    return new Observable<Record<string, unknown>>((subscriber) => {
      const abort = new AbortController();
      const inner = observeOutput(handler(params, inputContext(key, request, revision, abort.signal)))
        .pipe(
          filter((value) => !isHandlerEvent(value)),
          last(undefined, {}),
          map((value) => (isObject(value) ? value : {})),
        )
        .subscribe(subscriber);
      return () => {
        inner.unsubscribe();
        abort.abort(new Error(`input request ${key} is no longer needed`));
      };
    });
  });
}

/**
 * Answers every input request, concurrently, with the client's handlers (by method). Cold: emits
 * the `InputResponses` once all are answered; errors with the first failure (a `ProtocolError` for
 * a request the client has no handler for or whose params are invalid, else the handler's error);
 * unsubscribing aborts the handlers still running.
 */
export function answerInputRequests(
  requests: InputRequests,
  handlers: Readonly<Record<string, RequestHandler>>,
  revision: Revision,
): Observable<InputResponses> {
  const keys = Object.keys(requests);
  if (keys.length === 0) return of({});
  const answers = keys.map((key) => {
    const request = requests[key] as InputRequest;
    const handler = Object.hasOwn(handlers, request.method) ? handlers[request.method] : undefined;
    return answerOne(key, request, handler, revision);
  });
  return forkJoin(answers).pipe(map((results) => Object.fromEntries(keys.map((key, i) => [key, results[i]!]))));
}
