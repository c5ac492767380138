import { EmptyError, filter, map, Observable } from '../rx/rxjs';
import type { OperatorFunction, Subscription } from '../rx/rxjs';
import { ProtocolError } from '../jsonrpc/errors';
import { withProperty } from '../base/objects';
import type { PartialResultParams } from '../connection/correlator';
import { PARTIAL_RESULTS_EXTENSION } from '../connection/partial-results';
import { declaredExtensions } from '../schema/extensions';
import type { RequestOptions } from '../connection/request-pipeline';
import type { CallToolResult, Tool } from '../schema/tools';
import { describeIssues } from '../validation/issues';
import { defaultSchemaCheck } from './schema-checks';
import type { SchemaCheck } from './schema-checks';
import type { InputRequests } from './input-requests';

/** A progress report the server sent while a tool ran. */
export interface ToolProgressEvent {
  readonly type: 'progress';
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * A piece of the tool's output before its result (SEP-2998, experimental): sent only when both
 * sides declared partial results (`partialResults: true` in `connect`, `partialResults()` on the
 * server). `seq` counts from 0; a gap means a piece was dropped (delivery is best effort), and the
 * result that follows is always the whole answer.
 */
export interface ToolPartialEvent {
  readonly type: 'partial';
  readonly seq: number;
  readonly content?: readonly Record<string, unknown>[];
  readonly structuredContent?: Record<string, unknown>;
  readonly final?: boolean;
}

/** The tool's result; always the last event of a call. */
export interface ToolResultEvent {
  readonly type: 'result';
  readonly result: CallToolResult;
}

/**
 * The server needs input before the tool can finish (modern revisions: an `input_required`
 * result). The client answers `requests` with its sampling, elicitation and roots handlers and
 * sends the call again; `round` counts from 1.
 */
export interface ToolInputEvent {
  readonly type: 'input_required';
  readonly round: number;
  readonly requests: InputRequests;
}

/** What `client.callTool` emits: progress, partial and input events, then one result event. */
export type ToolCallEvent = ToolProgressEvent | ToolPartialEvent | ToolInputEvent | ToolResultEvent;

/** Per-call options of `callTool`. */
export interface CallToolOptions extends RequestOptions {
  /**
   * Ask the server for progress (a progress token goes in `_meta`) and emit it as progress events.
   * Default true. Progress also restarts the call's timeout unless `resetTimeoutOnProgress` is false.
   */
  readonly progress?: boolean;
  /** Check `structuredContent` against the tool's `outputSchema`. Default true. */
  readonly validateOutput?: boolean;
  /**
   * Ask for partial results and emit them as `partial` events. Default: when both sides declared
   * partial results. `false` leaves them out (the server then sends them as progress).
   */
  readonly partialResults?: boolean;
}

/** Keeps only the result of a tool call: `client.callTool(...).pipe(toolResult())`. */
export function toolResult(): OperatorFunction<ToolCallEvent, CallToolResult> {
  return (source) =>
    source.pipe(
      filter((event): event is ToolResultEvent => event.type === 'result'),
      map((event) => event.result),
    );
}

/**
 * Checks a tool's result against the tool's `outputSchema` (Server Features → Tools → Output
 * Schema): a tool with one must return conforming `structuredContent`, unless the result is an
 * error. Throws `ProtocolError` naming the tool and each mismatch.
 */
export function checkToolOutput(
  tool: Tool | undefined,
  result: CallToolResult,
  check: SchemaCheck = defaultSchemaCheck(),
): CallToolResult {
  const schema = tool?.outputSchema;
  if (!tool || !schema || result.isError) return result;
  if (result.structuredContent === undefined) {
    throw new ProtocolError(`Tool "${tool.name}" has an outputSchema but returned no structuredContent`);
  }
  const issues = check(schema, result.structuredContent);
  if (issues.length > 0) {
    throw new ProtocolError(
      `Tool "${tool.name}" returned structuredContent that does not match its outputSchema: ${describeIssues(issues.slice(0, 5))}`,
    );
  }
  return result;
}

/** What a tool call needs from the client around it. */
export interface ToolCallContext {
  /**
   * Sends `tools/call` and emits its final result; `onInputRequired` hears of each input round
   * (modern revisions). The client adds its `_meta`, headers and input handling here.
   */
  readonly sendToolCall: (
    params: Record<string, unknown>,
    options: RequestOptions,
    onInputRequired: (round: number, requests: InputRequests) => void,
  ) => Observable<Record<string, unknown>>;
  /**
   * The tool's definition when it is worth checking: `undefined` when unknown. `fetchIfUnknown`
   * allows a `tools/list` round trip (made only when the result carries structured content).
   */
  readonly toolNamed: (name: string, fetchIfUnknown: boolean) => Observable<Tool | undefined>;
  /** Whether any tool definitions are known now (when none are and none are needed, no check runs). */
  readonly knowsTools?: () => boolean;
  /** Checks structured content against an output schema. */
  readonly check: SchemaCheck;
  /** What the server declared, for the extensions both sides use (partial results). */
  readonly serverCapabilities?: Record<string, unknown>;
  /** What the client declared. */
  readonly connection?: { capabilities(): Record<string, unknown> };
}

/** Whether both sides of a client's calls declared partial results, by client: read once, not per call. */
const partialResultsDeclared = new WeakMap<ToolCallContext, boolean>();

/** Whether both sides of a call declared partial results (fixed once a client is connected). */
function bothDeclarePartialResults(context: ToolCallContext): boolean {
  let declared = partialResultsDeclared.get(context);
  if (declared === undefined) {
    declared =
      declaredExtensions(context.serverCapabilities)[PARTIAL_RESULTS_EXTENSION] !== undefined &&
      declaredExtensions(context.connection?.capabilities())[PARTIAL_RESULTS_EXTENSION] !== undefined;
    partialResultsDeclared.set(context, declared);
  }
  return declared;
}

/**
 * A tool call as a cold Observable of events: subscribing sends `tools/call`, progress arrives as
 * progress events, each round of input the server asks for as an `input_required` event, and the
 * validated result as the last event before completion. Unsubscribing early cancels the call. Errors: the server's `JsonRpcError`, `RequestTimeoutError`,
 * `ConnectionClosedError`, or `ProtocolError` for a malformed result or structured content that does
 * not match the tool's output schema.
 */
export function callTool(
  context: ToolCallContext,
  name: string,
  args: Record<string, unknown> | undefined,
  options: CallToolOptions = {},
): Observable<ToolCallEvent> {
  const { progress: wantProgress = true, validateOutput = true, partialResults, ...requestOptions } = options;
  return new Observable<ToolCallEvent>((subscriber) => {
    const onPartialResult =
      (partialResults ?? bothDeclarePartialResults(context))
        ? (partial: PartialResultParams) => {
            requestOptions.onPartialResult?.(partial);
            const { taskId: _task, ...event } = partial;
            subscriber.next({ type: 'partial', ...event });
          }
        : requestOptions.onPartialResult;
    const onProgress = wantProgress
      ? (update: { progress: number; total?: number; message?: string }) => {
          requestOptions.onProgress?.(update);
          const { progress, total, message } = update;
          subscriber.next({
            type: 'progress',
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message === undefined ? {} : { message }),
          });
        }
      : requestOptions.onProgress;
    const params: Record<string, unknown> = { name, arguments: args ?? {} };
    // Hand-wired rather than concatMap: this runs for every call, and the tool's definition is
    // almost always known (or not needed) synchronously.
    let responded = false;
    let checking: Subscription | undefined;
    const emit = (result: CallToolResult) => {
      subscriber.next({ type: 'result', result });
      subscriber.complete();
    };
    const onInputRequired = (round: number, requests: InputRequests) =>
      subscriber.next({ type: 'input_required', round, requests });
    const withProgress = withProperty(requestOptions, 'onProgress', onProgress);
    const sent = onPartialResult ? withProperty(withProgress, 'onPartialResult', onPartialResult) : withProgress;
    const call = context.sendToolCall(params, sent, onInputRequired).subscribe({
      next: (raw) => {
        responded = true;
        const result = raw as CallToolResult;
        // Nothing to check against, and no reason to fetch the definitions: the common case.
        const nothingToCheck = result.structuredContent === undefined && context.knowsTools?.() === false;
        if (!validateOutput || result.isError || nothingToCheck) {
          emit(result);
          return;
        }
        checking = context.toolNamed(name, result.structuredContent !== undefined).subscribe({
          next: (tool) => {
            let checked: CallToolResult;
            try {
              checked = checkToolOutput(tool, result, context.check);
            } catch (error) {
              subscriber.error(error);
              return;
            }
            emit(checked);
          },
          error: (error: unknown) => subscriber.error(error),
          // No definition to be had: nothing to check against.
          complete: () => {
            if (!subscriber.closed) emit(result);
          },
        });
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        if (!responded) subscriber.complete();
      },
    });
    return () => {
      call.unsubscribe();
      checking?.unsubscribe();
    };
  });
}

/** The result of a tool call as a Promise (what `lastValueFrom(call.pipe(toolResult()))` gives, with fewer layers). */
export function resultOfCall(call: Observable<ToolCallEvent>): Promise<CallToolResult> {
  return new Promise((resolve, reject) => {
    let result: CallToolResult | undefined;
    call.subscribe({
      next: (event) => {
        if (event.type === 'result') result = event.result;
      },
      error: reject,
      complete: () => (result ? resolve(result) : reject(new EmptyError())),
    });
  });
}
