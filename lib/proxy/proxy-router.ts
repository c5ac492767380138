import { catchError, throwError } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { RequestContext } from '../connection/dispatcher';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { ElicitationOptions, SamplingHandler } from '../client/server-requests';
import type { CreateMessageResult } from '../schema/sampling';
import type { ElicitResult } from '../schema/elicitation';

/**
 * Carries the requests an upstream server makes during a call (sampling, elicitation) to the
 * downstream client whose call it is serving. Give `clientOptions` to `connect` when opening the
 * upstream client, and the router to `proxy`: the upstream client then declares `sampling` and
 * `elicitation` (form and URL), and each such request is sent to the downstream client, related to
 * its call, as the most recent downstream call still in flight. With one downstream client at a
 * time this is exact; with several sharing one upstream, a request goes to the latest caller (an
 * upstream connection per downstream client makes it exact for all).
 */
export class ProxyRouter {
  private readonly active: RequestContext[] = [];

  /** What the upstream client is connected with: handlers that ask the downstream caller. */
  get clientOptions(): { readonly sampling: SamplingHandler; readonly elicitation: ElicitationOptions } {
    return {
      sampling: (params) => this.ask('sampling/createMessage', params) as Observable<CreateMessageResult>,
      elicitation: {
        handler: (params) => this.ask('elicitation/create', params) as Observable<ElicitResult>,
        form: true,
        url: true,
      },
    };
  }

  /** Marks a downstream call as in flight until the returned function is called. */
  track(context: RequestContext): () => void {
    this.active.push(context);
    return () => {
      const index = this.active.lastIndexOf(context);
      if (index >= 0) this.active.splice(index, 1);
    };
  }

  private ask(method: string, params: object): Observable<Record<string, unknown>> {
    const caller = this.active.at(-1);
    if (!caller) {
      return throwError(
        () =>
          new JsonRpcError(
            ErrorCode.InvalidRequest,
            `${method} reached the proxy with no downstream call in flight to ask`,
          ),
      );
    }
    return caller.request(method, params as Record<string, unknown>).pipe(
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

/** A router for {@link proxy}'s `router` option. */
export function createProxyRouter(): ProxyRouter {
  return new ProxyRouter();
}
