import { catchError, finalize, throwError } from '../rx/rxjs';
import type { Observable, SchedulerLike } from '../rx/rxjs';
import type { HandlerResult, RequestContext } from '../connection/dispatcher';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { ElicitationOptions, RootsHandler, SamplingHandler } from '../client/server-requests';
import type { Root } from '../schema/roots';
import type { CreateMessageResult } from '../schema/sampling';
import type { ElicitResult } from '../schema/elicitation';
import { BridgedCall, BridgedCalls } from './input-bridge';
import type { UpstreamCall } from './input-bridge';
import { requestForCaller } from './revision-shapes';

/** A downstream call in flight: a session's request, asked directly, or a modern one's bridged call. */
type Caller = RequestContext | BridgedCall;

/** Requests a modern caller may be asked input for (spec 2026-07-28: Multi Round-Trip Requests). */
const MULTI_ROUND_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * Carries the requests an upstream server makes during a call (sampling, elicitation, roots) to
 * the downstream client whose call it is serving. Give `clientOptions` to `connect` when opening
 * the upstream client, and the router to `proxy`: the upstream client then declares `sampling`,
 * `elicitation` (form and URL) and `roots`, and each such request is sent to the downstream client,
 * related to its call, as the most recent downstream call still in flight (`roots/list` asked
 * outside any call gets an empty list). With one downstream client at a
 * time this is exact; with several sharing one upstream, a request goes to the latest caller (an
 * upstream connection per downstream client makes it exact for all).
 *
 * A downstream caller of a modern revision (2026-07-28 on) cannot be sent requests: the
 * upstream's requests during its call end the caller's request with an `input_required` result,
 * and its retry brings the answers back to the upstream call, which stayed open (see
 * `BridgedCall`). Either way round, a client of a handshake revision and a server of a
 * modern one (which asks through `input_required` results the upstream client answers with
 * these handlers) or the reverse, the question reaches the person who made the call.
 */
export class ProxyRouter {
  private readonly active: Caller[] = [];
  /** The bridged calls waiting for their callers' answers. */
  readonly bridged: BridgedCalls;

  constructor(options: ProxyRouterOptions = {}) {
    this.bridged = new BridgedCalls(options.scheduler, options.inputWaitMs);
  }

  /** What the upstream client is connected with: handlers that ask the downstream caller. */
  get clientOptions(): {
    readonly sampling: SamplingHandler;
    readonly elicitation: ElicitationOptions;
    readonly roots: RootsHandler;
  } {
    return {
      sampling: (params) => this.ask('sampling/createMessage', params) as Observable<CreateMessageResult>,
      // Asked outside any call (servers often ask on connecting), the proxy has no roots of its own.
      roots: (params) =>
        this.active.length === 0
          ? { roots: [] }
          : (this.ask('roots/list', params) as Observable<{ roots: readonly Root[] }>),
      elicitation: {
        handler: (params) => this.ask('elicitation/create', params) as Observable<ElicitResult>,
        form: true,
        url: true,
      },
    };
  }

  /** Marks a downstream call as in flight until the returned function is called. */
  track(caller: Caller): () => void {
    this.active.push(caller);
    return () => {
      const index = this.active.lastIndexOf(caller);
      if (index >= 0) this.active.splice(index, 1);
    };
  }

  /** Whether a request must be bridged: a modern caller's request that may ask for input. */
  bridges(method: string, context: RequestContext): boolean {
    return context.peer !== undefined && MULTI_ROUND_METHODS.has(method);
  }

  /**
   * Serves a modern caller's request through a bridged call: a new upstream call made by `call`,
   * or, for a retry carrying `requestState`, the waiting call it names.
   */
  bridge(params: Record<string, unknown>, context: RequestContext, call: UpstreamCall): Observable<HandlerResult> {
    if (params.requestState !== undefined) return this.bridged.take(params.requestState).resume(context, params);
    const bridged = new BridgedCall(context, this.bridged);
    return bridged.start((current) => {
      const untrack = this.track(bridged);
      return call(current).pipe(finalize(untrack));
    });
  }

  /** Cancels the upstream calls still waiting for answers. */
  close(): void {
    this.bridged.close();
  }

  private ask(method: string, asked: Record<string, unknown>): Observable<Record<string, unknown>> {
    const caller = this.active.at(-1);
    let params = asked;
    if (caller) {
      // In the caller's revision's shapes; one it cannot carry is refused to the upstream, saying why.
      try {
        params = requestForCaller(method, params, caller.revision);
      } catch (error) {
        return throwError(() => error);
      }
    }
    if (caller instanceof BridgedCall) return caller.ask(method, params);
    if (!caller) {
      return throwError(
        () =>
          new JsonRpcError(
            ErrorCode.InvalidRequest,
            `${method} reached the proxy with no downstream call in flight to ask`,
          ),
      );
    }
    return caller.request(method, params).pipe(
      catchError((error: unknown) => {
        if (error instanceof JsonRpcError) return throwError(() => error);
        // A local refusal (the caller did not declare the capability, its connection closed): say so upstream.
        const why = error instanceof Error ? error.message : String(error);
        return throwError(
          () => new JsonRpcError(ErrorCode.MethodNotFound, `The downstream client cannot answer ${method}: ${why}`),
        );
      }),
    );
  }
}

/** Options of {@link createProxyRouter}. */
export interface ProxyRouterOptions {
  /**
   * How long an upstream call asked for input on behalf of a modern caller waits for the
   * caller's retry before it is cancelled upstream. Default 5 minutes.
   */
  readonly inputWaitMs?: number;
  /** Where that wait is timed (tests pass a virtual-time scheduler). */
  readonly scheduler?: SchedulerLike;
}

/** A router for {@link proxy}'s `router` option. */
export function createProxyRouter(options: ProxyRouterOptions = {}): ProxyRouter {
  return new ProxyRouter(options);
}
