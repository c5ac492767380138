/**
 * The context a shared webhook subscription's source is followed with by a process that took the
 * subscription over and so never saw the request that made it: the caller's verified identity as
 * the store kept it, and nothing that reaches a client (there is none to reach: requests to it
 * fail, progress, logs and notifications go nowhere).
 */
import { throwError } from '../../rx/rxjs';
import type { Observable } from '../../rx/rxjs';
import { CapabilityNotSupportedError } from '../../jsonrpc/errors';
import { LATEST_LEGACY_REVISION } from '../../schema/revisions';
import type { ServerContext } from '../server-context';
import type { StoredWebhook } from './webhook-store';

const noClient = (method: string): Observable<never> =>
  throwError(() => new CapabilityNotSupportedError('client', method, 'client'));

/** The context of `record`'s source when no request of its caller is at hand. */
export function detachedContext(record: StoredWebhook): ServerContext {
  const none = () => undefined;
  return {
    requestId: record.id,
    method: 'events/subscribe',
    revision: LATEST_LEGACY_REVISION,
    // Never aborted: the source outlives any request, as with a subscription made here.
    signal: new AbortController().signal,
    progress: none,
    log: none,
    notify: none,
    request: (method: string) => noClient(method),
    sample: () => noClient('sampling/createMessage'),
    elicit: () => noClient('elicitation/create'),
    elicitUrl: () => noClient('elicitation/create'),
    listRoots: () => noClient('roots/list'),
    session: undefined,
    auth: record.auth,
    headers: undefined,
    clientCapabilities: undefined,
    clientInfo: undefined,
  };
}
